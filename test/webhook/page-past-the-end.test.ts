/**
 * `/autopilot segments 5` (or `events 5`) past the last page answered "No segments on this page."
 * under "Page 5 of 4": a page that does not exist, numbered as if it did. It now says there is no
 * page 5 and names the last page with the command that shows it.
 *
 * The real webhook, driven with signed Slack requests, reads the sandbox over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 42 });
});
afterAll(async () => {
  await sandbox?.close();
});

async function read(text: string): Promise<{ text: string; all: string }> {
  const console = createConsoleClient({
    baseUrl: sandbox.url,
    apiKey: 'sandbox-key',
    timeoutMs: 2_000,
    maxRetries: 0,
    mutationBudget: false,
  });
  const { app } = buildApp({ console });
  const res = await app.request(signedRequest('/slack/commands', commandBody({ text, userId: 'U0READER' })));
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { text: string; blocks: unknown[] };
  return { text: reply.text, all: JSON.stringify(reply.blocks) };
}

/** The last page, as page 1's hint numbers it ("Page 1 of 4"). */
async function lastPage(command: string): Promise<number> {
  const first = await read(command);
  const of = /Page 1 of (\d+)/.exec(first.all)?.[1];
  expect(of, first.all).toBeDefined();
  return Number(of);
}

describe('a page past the last', () => {
  for (const command of ['segments', 'events']) {
    it(`${command}: says there is no such page and names the last one`, async () => {
      const last = await lastPage(command);
      const past = last + 1;
      const { text, all } = await read(`${command} ${past}`);
      expect(text).toBe(`There is no page ${past} of ${command}; the last is page ${last}.`);
      expect(all).toContain(
        `There is no page ${past} of ${command}; the last is page ${last}: \`/autopilot ${command} ${last}\``,
      );
      expect(all).not.toContain(`Page ${past} of ${last}`);
    });
  }
});
