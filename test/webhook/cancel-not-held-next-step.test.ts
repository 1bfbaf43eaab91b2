/**
 * `/autopilot cancel <id>` of a request that is not held (it ended, was cancelled already, or the
 * id is mistyped) answered ":warning: request X is not held (it ended, or never waited)" and
 * nothing more: a dead end, with neither how it ended nor what to try. The refusal now names the
 * next steps, `/autopilot why <id>` and `/autopilot held`. Against dynalite, on the webhook's clock.
 */
import { expect, it } from 'vitest';
import { heldAccess } from '../../src/webhook/held.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp, holdForCiWindow } from './harness.js';

const { table } = emulatorsForFile();

/** The webhook's clock, never the machine's. */
const nowMs = Date.parse('2026-11-23T20:00:00.000Z');

async function say(text: string, userId = 'U0ADMIN') {
  const { app } = buildApp({ now: () => nowMs, table, held: heldAccess(table) });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, userId }), { timestamp: Math.floor(nowMs / 1000) }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as { response_type: string; text: string; blocks?: unknown[] };
}

const held = (requestId: string) => holdForCiWindow(table, requestId, 'trg_nh1');

const NEXT = '`/autopilot why ID` shows its story; `/autopilot held` lists what can be cancelled.';

it('a cancel of an id nobody holds names the next steps', async () => {
  const reply = await say('cancel ci-never-held-1');

  expect(reply.response_type).toBe('ephemeral');
  expect(reply.text).toBe('request ci-never-held-1 is not held (it ended, or never waited)');
  expect(JSON.stringify(reply.blocks)).toContain(NEXT.replace('ID', 'ci-never-held-1'));
});

it('a cancel of a request cancelled already names the next steps', async () => {
  await held('ci-cancelled-twice-1');
  expect(JSON.stringify(await say('cancel ci-cancelled-twice-1 release called off', 'U0RELEASE'))).toContain(
    'is *cancelled*',
  );

  const again = await say('cancel ci-cancelled-twice-1');

  expect(again.text).toBe('request ci-cancelled-twice-1 is already cancelled');
  expect(JSON.stringify(again.blocks)).toContain(NEXT.replace('ID', 'ci-cancelled-twice-1'));
});
