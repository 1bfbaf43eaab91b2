/**
 * Review (what people read in Slack): a section past 2900 characters, and a field past 1900, are
 * cut so that Slack takes the reply. The cut was made on the escaped text at a fixed place, so it
 * could split an escape: a segment description or tag with an `&` near the limit ended in "&a",
 * text the platform never held, shown as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import type { SlackBlock } from '../../src/webhook/blocks.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 42 });
});
afterAll(async () => {
  await sandbox?.close();
});

async function read(text: string): Promise<string[]> {
  const console = createConsoleClient({ baseUrl: sandbox.url, apiKey: 'sandbox-key', timeoutMs: 2_000 });
  const { app } = buildApp({ console });
  const res = await app.request(signedRequest('/slack/commands', commandBody({ text, userId: 'U0READER' })));
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { blocks: SlackBlock[] };
  const texts: string[] = [];
  JSON.parse(JSON.stringify(reply.blocks), (key, value) => {
    if (key === 'text' && typeof value === 'string') texts.push(value);
    return value;
  });
  return texts;
}

/** Every `&` in mrkdwn starts an escape: otherwise the cut split one and the reader sees its pieces. */
const BROKEN_ESCAPE = /&(?!amp;|lt;|gt;)/;

describe('a segment whose description and tags are cut to Slack’s limits', () => {
  it('never shows half of an escape where the cut fell', async () => {
    const segment = sandbox.sandbox.state.segments.get('beta_testers') as unknown as Record<string, unknown>;
    // Escaped, each `&` is `&amp;`: the section's cut (2899) and the field's (1900) fall inside one
    // (the description is quoted: `> ` comes before it).
    segment.description = `${'d'.repeat(2895)}${'&'.repeat(10)}`;
    segment.tags = [`${'t'.repeat(1890)}${'&'.repeat(10)}`];
    const texts = await read('segment beta_testers');
    const description = texts.find((t) => t.startsWith('> ddd'));
    const tags = texts.find((t) => t.startsWith('*Tags*'));
    expect(description).toMatch(/…$/);
    expect(tags).toBeDefined();
    expect(description).not.toMatch(BROKEN_ESCAPE);
    expect(tags).not.toMatch(BROKEN_ESCAPE);
  });
});
