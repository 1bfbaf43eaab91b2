/**
 * Review (what people read in Slack): a table cell past 40 characters, and the excerpt of what
 * someone typed that a usage error quotes, were cut by UTF-16 position. An emoji (two UTF-16 units)
 * where the cut fell left half of it, a lone surrogate: Slack shows it as garbage, and a strict
 * JSON reader refuses the whole reply. The excerpt did not show invisible characters either: a
 * U+202E in what was typed turned our words after it around. Both now cut on code points, and the
 * excerpt shows invisible characters as `[U+202E]`, as every other untrusted text is shown.
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

/** The reply's fallback text and every text of its blocks, as the JSON Slack receives is read. */
async function command(text: string): Promise<string[]> {
  const console = createConsoleClient({ baseUrl: sandbox.url, apiKey: 'sandbox-key', timeoutMs: 2_000 });
  const { app } = buildApp({ console });
  const res = await app.request(signedRequest('/slack/commands', commandBody({ text, userId: 'U0READER' })));
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { text: string; blocks?: unknown[] };
  const texts: string[] = [reply.text];
  JSON.parse(JSON.stringify(reply.blocks ?? []), (key, value) => {
    if (key === 'text' && typeof value === 'string') texts.push(value);
    return value;
  });
  return texts;
}

/** Half of a surrogate pair: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('text cut to fit a reply', () => {
  it('a table cell keeps whole characters where the cut falls', async () => {
    const segment = sandbox.sandbox.state.segments.get('beta_testers') as unknown as Record<string, unknown>;
    const id = segment.id;
    try {
      // 38 characters, then an emoji: a cut at 39 UTF-16 units falls between its two halves.
      segment.id = `seg_${'a'.repeat(34)}🚀_rollout_cohort`;
      const texts = await command('segments');
      const table = texts.find((t) => t.includes('seg_aaaa'));
      expect(table).toBeDefined();
      expect(LONE_SURROGATE.test(table as string)).toBe(false);
      expect(table).toContain(`seg_${'a'.repeat(34)}🚀…`);
    } finally {
      segment.id = id;
    }
  });

  it('a usage error quotes what was typed with whole characters and invisibles shown', async () => {
    // An id the grammar refuses: 39 characters, then an emoji across the excerpt's cut at 40.
    const typed = `x${'y'.repeat(38)}🚀\u202Edelorppa`;
    const texts = await command(`role ${typed}`);
    expect(texts.some((t) => t.includes('may only hold'))).toBe(true);
    for (const text of texts) {
      expect(LONE_SURROGATE.test(text)).toBe(false);
      expect(text).not.toContain('\u202E');
    }
    const short = await command('role ab\u202Ecd!');
    expect(short.some((t) => t.includes('`ab[U+202E]cd!`'))).toBe(true);
  });
});
