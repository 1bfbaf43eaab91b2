/**
 * A pause reason is text a person typed: the in-channel "paused" reply and `status` show it on one
 * line with its invisible characters marked, as the worker's posts show every reason
 * (src/worker/replies.ts `flat`). Escaped only, a line separator in it wrote a line of its own
 * under ours ("resumed console-autopilot") and a bidi override turned our words around for the
 * whole channel.
 */
import { expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const { table } = emulatorsForFile();

const NOW_MS = Date.parse('2026-11-23T10:00:00Z');

type Reply = { text: string; response_type?: string; blocks?: Array<{ text?: { text: string } }> };

async function command(text: string, userId: string): Promise<Reply> {
  const { app } = buildApp({ table, now: () => NOW_MS });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, userId }), { timestamp: NOW_MS / 1000 }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as Reply;
}

const blockTexts = (reply: Reply) => (reply.blocks ?? []).map((b) => b.text?.text ?? '').join('\n');

it('shows a pause reason on one line, its invisible characters marked', async () => {
  const reason = 'db migration\u2028:arrow_forward: automation resumed \u202Eemuser\u202C';
  const paused = await command(`pause ${reason}`, 'U0OPS');
  expect(paused.response_type).toBe('in_channel');
  const shown = blockTexts(paused);
  expect(shown).toContain('[U+202E]');
  expect(shown).not.toMatch(/[\u2028\u2029\u202A-\u202E]/u);

  const status = blockTexts(await command('status', 'U0OPS'));
  expect(status).toContain('[U+202E]');
  expect(status).not.toMatch(/[\u2028\u2029\u202A-\u202E]/u);
});
