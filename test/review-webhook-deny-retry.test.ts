/**
 * A Slack retry of a Deny click (`X-Slack-Retry-Num`, the same body) whose first delivery was
 * taken: the veto is written and the question was ended by it (the release tick's next look). The
 * retry found the question closed and told the person who denied "This question is no longer open
 * (it was answered, cancelled or has expired) … nothing was done", though their Deny is what ended
 * it. A retried Approve click is recognised (its queued mark) and answered nothing; a Deny is not.
 * Against dynalite.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ActionRequest } from '../src/actions/request.js';
import { type Emulators, startEmulators } from '../src/local/emulators.js';
import { encodeButtonValue } from '../src/slack/button-value.js';
import { endHold, holdRequest } from '../src/state/held.js';
import type { StateTable } from '../src/state/table.js';
import { heldAccess } from '../src/webhook/held.js';
import { DENY_ACTION_ID } from '../src/webhook/interactions.js';
import { blockActionsPayload, interactionBody, signedRequest } from './helpers/slack-requests.js';
import { buildApp } from './webhook/harness.js';

let emu: Emulators;
let table: StateTable;

beforeAll(async () => {
  emu = await startEmulators();
  table = { client: emu.dynamo, tableName: emu.tableName };
});
afterAll(async () => {
  await emu?.stop();
});

const asked: ActionRequest & { requestId: string } = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_7',
  phaseId: 'ph_1',
  requestedBy: { source: 'schedule', id: 'sweeper' },
  requestedAt: '2026-11-22T02:00:00.000Z',
  requestId: 'sweeper-deny-retry',
};

/** The webhook's clock, never the machine's. */
let nowMs = Date.parse('2026-11-22T02:05:00.000Z');

it('a retried Deny whose first delivery ended the question is not told "nothing was done"', async () => {
  await holdRequest(
    table,
    {
      requestId: asked.requestId,
      action: asked.action,
      target: 'trigger trg_7 phase ph_1',
      requester: 'schedule:sweeper',
      why: 'ask',
      rule: 'ask',
      reason: 'a rule asks',
      since: '2026-11-22T02:00:01.000Z',
      request: asked,
    },
    new Date('2026-11-22T02:00:01.000Z'),
  );
  const { app, posts } = buildApp({ now: () => nowMs, table, held: heldAccess(table) });
  const body = interactionBody(
    blockActionsPayload({ actionId: DENY_ACTION_ID, value: encodeButtonValue(asked), userId: 'U0RELEASE' }),
  );

  const first = await app.request(
    signedRequest('/slack/interactions', body, { timestamp: Math.floor(nowMs / 1000) }),
  );
  expect(first.status).toBe(200);
  expect(JSON.stringify(posts.at(-1)?.message)).toContain('*denied* by');

  // The release tick's next look ends the question by the veto; then Slack retries the click.
  await endHold(table, asked.requestId);
  nowMs += 30_000;
  const retry = await app.request(
    signedRequest('/slack/interactions', body, {
      timestamp: Math.floor(nowMs / 1000),
      extraHeaders: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    }),
  );
  expect(retry.status).toBe(200);
  const told = posts.slice(1).map((p) => JSON.stringify(p.message));
  expect(told.join('\n')).not.toContain('nothing was done');
});
