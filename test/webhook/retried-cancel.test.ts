/**
 * A Slack retry of `/autopilot cancel <id>` (`X-Slack-Retry-Num`, the same body, so the same
 * request id) whose first delivery cancelled the request: the retry found the held item already
 * marked (or gone, once the worker ended it) and told the person ":warning: request X is already
 * cancelled" / "is not held (it ended, or never waited)", a refusal, though their own cancel did it.
 * Like a retried Deny or pause, the first delivery now leaves a mark in the queued family and the
 * retry is answered that it was already taken; a retry whose first delivery did nothing still
 * cancels. Against dynalite, on the webhook's injected clock.
 */
import { expect, it } from 'vitest';
import { endHold, readHeld } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp, holdForCiWindow } from './harness.js';

const { table } = emulatorsForFile();

const RETRY = { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' };

/** The webhook's clock, never the machine's. */
let nowMs = Date.parse('2026-11-23T20:00:00.000Z');

const held = (requestId: string, triggerId: string) => holdForCiWindow(table, requestId, triggerId);

function setup(requestId: string) {
  const { app } = buildApp({ now: () => nowMs, table, held: heldAccess(table) });
  const body = commandBody({ text: `cancel ${requestId} release called off`, userId: 'U0RELEASE' });
  return async (retry: boolean) => {
    const res = await app.request(
      signedRequest('/slack/commands', body, {
        timestamp: Math.floor(nowMs / 1000),
        ...(retry ? { extraHeaders: RETRY } : {}),
      }),
    );
    expect(res.status).toBe(200);
    return JSON.stringify(await res.json());
  };
}

it('a retried cancel whose first delivery cancelled the request is told it was taken, not refused', async () => {
  await held('ci-cancel-retry-1', 'trg_cr1');
  const say = setup('ci-cancel-retry-1');

  const first = await say(false);
  expect(first).toContain('is *cancelled*');
  const mark = (await readHeld(table, 'ci-cancel-retry-1'))?.cancel;
  expect(mark).toMatchObject({ by: 'slack:U0RELEASE', at: '2026-11-23T20:00:00.000Z' });

  // Slack retries the command (the first answer reached it late); the held item is still there.
  nowMs += 5_000;
  const retried = await say(true);
  expect(retried).not.toContain(':warning:');
  expect(retried).not.toContain('already cancelled');
  expect(retried).toContain('Slack sent your cancel');
  expect(retried).toContain('already taken');
  // The first delivery's mark stands, not written again.
  expect((await readHeld(table, 'ci-cancel-retry-1'))?.cancel).toEqual(mark);

  // A later retry, once the worker has ended the request (the held item gone): still taken.
  await endHold(table, 'ci-cancel-retry-1');
  nowMs += 60_000;
  const late = await say(true);
  expect(late).not.toContain('is not held');
  expect(late).toContain('already taken');
});

it('a retried cancel whose first delivery never arrived cancels now', async () => {
  await held('ci-cancel-retry-2', 'trg_cr2');
  const say = setup('ci-cancel-retry-2');

  const retried = await say(true);

  expect(retried).toContain('is *cancelled*');
  expect((await readHeld(table, 'ci-cancel-retry-2'))?.cancel).toMatchObject({ by: 'slack:U0RELEASE' });
});
