/**
 * `npm start`'s Slack receiver prints what would be posted to Slack on the developer's terminal.
 * Those posts quote text from outside: an event's value or user id (any client SDK logs events;
 * with CONSOLE_API_BASE_URL that is a real platform's log), a platform's error, a CI reason.
 * Slack shows a control character as nothing, but a terminal obeys it: an event valued
 * "\u001b]0;…\u0007" retitled the window, "\u001b[2J" cleared it, a carriage return overwrote the
 * line. The receiver (and `npm run demo`, which prints the same descriptions) now shows each
 * control character as its escape, keeping the message's own line breaks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSlackMessage } from '../../src/local/slack-receiver.js';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';

const printed: string[] = [];
let stack: LocalStack;
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'autopilot-review-cli-receiver-'));
  stack = await bootLocalStack({
    port: 0,
    stateDir: dir,
    sweepIntervalSeconds: false,
    release: { intervalSeconds: false },
    worker: { autoStart: false },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: (line) => printed.push(line) },
  });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the local stack's Slack receiver", () => {
  it('prints an event value from the log with its control characters escaped', async () => {
    // The shipped policy's rule "tell the channel" notifies every experiment_* event.
    stack.sandbox?.addEvents([
      {
        timestamp: Date.now() - 30_000,
        name: 'experiment_started',
        value: 'pwn\u001b]0;owned\u0007\u001b[2J\rfake line',
        userID: 'usr_9',
      },
    ]);
    await stack.runSweeper();
    const notice = printed.find((line) => line.includes('pwn'));
    expect(notice, printed.join('\n')).toBeDefined();
    for (const raw of ['\u001b', '\u0007', '\r']) expect(notice).not.toContain(raw);
  });

  // Since 2f87939 the sweeper's notices turn control characters into spaces before they reach
  // the receiver; what else it prints (a platform's error, a CI reason) it escapes itself.
  it('shows a control character in a message as its escape', () => {
    expect(describeSlackMessage({ text: 'pwn\u001b]0;owned\u0007\u001b[2J\rfake line' })).toBe(
      'pwn\\u001b]0;owned\\u0007\\u001b[2J\\u000dfake line',
    );
  });

  it('keeps a message’s own line breaks', () => {
    expect(describeSlackMessage({ text: 'first\nsecond' })).toBe('first\nsecond');
  });
});
