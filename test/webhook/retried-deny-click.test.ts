/**
 * A Slack retry of a Deny click (`X-Slack-Retry-Num`, the same body) whose first delivery was
 * taken: the veto is written and the question was ended by it (the release tick's next look). The
 * retry found the question closed and told the person who denied "This question is no longer open
 * (it was answered, cancelled or has expired) … nothing was done", though their Deny is what ended
 * it. A retried Approve click is recognised (its queued mark); a Deny now leaves one too, and a
 * retry whose first delivery wrote nothing is still taken. Against dynalite.
 */
import { expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { vetoKeyFor } from '../../src/policy/veto-key.js';
import { encodeButtonValue } from '../../src/slack/button-value.js';
import { endHold, holdRequest } from '../../src/state/held.js';
import { readVeto } from '../../src/state/veto.js';
import { heldAccess } from '../../src/webhook/held.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp, testPolicy } from './harness.js';

const { table } = emulatorsForFile();

const RETRY = { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' };

function asked(requestId: string, triggerId: string): ActionRequest & { requestId: string } {
  return {
    version: 1,
    action: 'approve_phase',
    triggerId,
    phaseId: 'ph_1',
    requestedBy: { source: 'schedule', id: 'sweeper' },
    requestedAt: '2026-11-22T02:00:00.000Z',
    requestId,
  };
}

async function ask(request: ActionRequest & { requestId: string }) {
  await holdRequest(
    table,
    {
      requestId: request.requestId,
      action: request.action,
      target: `trigger ${request.action === 'approve_phase' ? request.triggerId : ''} phase ph_1`,
      requester: 'schedule:sweeper',
      why: 'ask',
      rule: 'ask',
      reason: 'a rule asks',
      since: '2026-11-22T02:00:01.000Z',
      request,
    },
    new Date('2026-11-22T02:00:01.000Z'),
  );
}

/** The webhook's clock, never the machine's. */
let nowMs = Date.parse('2026-11-22T02:05:00.000Z');

function setup(request: ActionRequest) {
  const { app, posts } = buildApp({ now: () => nowMs, table, held: heldAccess(table) });
  const body = interactionBody(
    blockActionsPayload({ actionId: DENY_ACTION_ID, value: encodeButtonValue(request), userId: 'U0RELEASE' }),
  );
  const click = async (retry: boolean) => {
    const res = await app.request(
      signedRequest('/slack/interactions', body, {
        timestamp: Math.floor(nowMs / 1000),
        ...(retry ? { extraHeaders: RETRY } : {}),
      }),
    );
    expect(res.status).toBe(200);
    return posts.at(-1)?.message as { text: string; replace_original?: boolean };
  };
  return { click, posts };
}

it('a retried Deny whose first delivery ended the question is told it was taken, and nothing is written again', async () => {
  const question = asked('sweeper-deny-retry', 'trg_7');
  await ask(question);
  const { click, posts } = setup(question);

  const first = await click(false);
  expect(first.text).toBe('Denied by U0RELEASE');
  const veto = await readVeto(table, vetoKeyFor(testPolicy(), question));
  expect(veto).toMatchObject({ by: 'slack:U0RELEASE', at: '2026-11-22T02:05:00.000Z' });

  // The release tick's next look ends the question by the veto; then Slack retries the click.
  await endHold(table, question.requestId);
  nowMs += 30_000;
  const retried = await click(true);

  expect(posts).toHaveLength(2);
  expect(retried.text).not.toContain('nothing was done');
  expect(retried.text).not.toContain('no longer open');
  expect(retried.text).toContain('Slack sent your Deny of');
  expect(retried.text).toContain('it was already taken');
  // Only the person who clicked reads it; the "denied" message stays.
  expect(retried.replace_original).toBe(false);
  // The veto is the first delivery's, not written a second time.
  expect(await readVeto(table, vetoKeyFor(testPolicy(), question))).toEqual(veto);
});

it('a retried Deny whose first delivery wrote nothing is taken now', async () => {
  const question = asked('sweeper-deny-first-lost', 'trg_8');
  await ask(question);
  const { click } = setup(question);

  // Only the retry arrives at the webhook (the first delivery never got here).
  const retried = await click(true);

  expect(retried.text).toBe('Denied by U0RELEASE');
  expect(await readVeto(table, vetoKeyFor(testPolicy(), question))).toMatchObject({ by: 'slack:U0RELEASE' });
});
