/**
 * `/autopilot resume` while nothing is paused told the whole channel "<@U> resumed
 * console-autopilot. Deferred actions proceed at their next check.", though nothing had been
 * paused and nothing changed; it is now told to the person alone, as what it is. And a `pause`
 * over another person's pause replaced their who and why without a word (`status` shows only the
 * last): the channel is now told which pause it replaced. Against dynalite, on the webhook's clock.
 */
import { expect, it } from 'vitest';
import { readPause, writePause } from '../../src/state/pause.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const { table } = emulatorsForFile();

/** The webhook's clock, and Slack's (its timestamps are whole seconds). */
let nowMs = Date.parse('2026-11-23T10:00:00Z');

async function say(text: string, userId = 'U0ADMIN') {
  const { app } = buildApp({ table, now: () => nowMs });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, userId }), { timestamp: Math.floor(nowMs / 1000) }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as { text: string; response_type?: string; blocks?: unknown[] };
}

it('a resume while nothing is paused tells the person so, not the channel that it resumed', async () => {
  await writePause(table, { paused: false, by: 'slack:U0OPS', at: new Date('2026-11-23T09:00:00Z') });

  const reply = await say('resume');

  expect(reply.response_type).toBe('ephemeral');
  expect(reply.text).toBe(
    'console-autopilot was not paused, so there was nothing to resume; nothing changed.',
  );
  expect(JSON.stringify(reply.blocks)).toContain('`/autopilot status` shows its state.');
  expect(JSON.stringify(reply)).not.toContain('resumed');
  expect(await readPause(table)).toEqual({ paused: false });
});

it('a resume of a pause still tells the channel who resumed it', async () => {
  await writePause(table, { paused: true, by: 'slack:U0OPS', reason: 'incident 4711', at: new Date(nowMs) });

  const reply = await say('resume');

  expect(reply.response_type).toBe('in_channel');
  expect(reply.text).toBe('console-autopilot resumed');
  expect(await readPause(table)).toEqual({ paused: false });
});

it('a pause over another pause tells the channel whose pause it replaced', async () => {
  await writePause(table, {
    paused: true,
    by: 'slack:U0OPS',
    reason: 'incident 4711',
    at: new Date('2026-11-23T09:30:00Z'),
  });
  nowMs += 60_000;

  const reply = await say('pause deploy freeze');

  expect(reply.response_type).toBe('in_channel');
  const shown = JSON.stringify(reply.blocks);
  expect(shown).toContain('paused console-autopilot: deploy freeze.');
  expect(shown).toContain(
    'It was already paused by slack:U0OPS since 2026-11-23T09:30:00.000Z (incident 4711); this pause replaces that one.',
  );
  expect(await readPause(table)).toMatchObject({
    paused: true,
    by: 'slack:U0ADMIN',
    reason: 'deploy freeze',
  });
});

it('a first pause says nothing of an earlier one', async () => {
  await writePause(table, { paused: false, by: 'slack:U0OPS', at: new Date(nowMs) });

  const reply = await say('pause');

  expect(reply.response_type).toBe('in_channel');
  expect(JSON.stringify(reply.blocks)).not.toContain('already paused');
});
