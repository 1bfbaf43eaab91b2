/**
 * A request id belongs to the request first held or ended under it. Any sender the queue lets in
 * may speak as `ci` without a proof: a CI message that reuses another requester's held (or ended)
 * request's id is refused to the DLQ and touches nothing under it, and ids our own producers
 * derive (an Approve click's copy `<asked id>:approved-by:<user>`, `slack-…`, `ev:…`, `stale:…`)
 * are refused from any other source, so a foreseeable id cannot be taken and ended first.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { readRequestAudit } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { reservedIdRefusal } from '../../src/worker/admit.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { benchForFile } from '../worker/fixture.js';
import { askQuestion, questionWebhook } from '../worker/questions.js';

const bench = benchForFile();

it("a CI message reusing a held question's request id does not end that question", async () => {
  // The schedule asks a human about trg_hj1 (held, why "ask"; its id is shown in the channel).
  const value = await askQuestion(bench, 'trg_hj1', 'sched-question-1');

  // A CI principal (denied by policy for everything) sends its own request under that id,
  // about another trigger: no grant, no proof needed.
  await bench.send({
    triggerId: 'trg_other',
    phaseId: 'ph_9',
    requestId: 'sched-question-1',
    requestedBy: { source: 'ci', id: 'blocked' },
  });
  await bench.run(bench.worker(), await bench.receive());

  // The CI message went to the DLQ, saying why (its audit record says what it claimed).
  const refused = (await readRequestAudit(bench.table, 'sched-question-1')).records.filter(
    (r) => r.result === 'dead-lettered',
  );
  expect(refused.map((r) => [r.rule, r.requester, r.reason])).toEqual([
    [
      'request-id-taken',
      'unproven ci:blocked',
      'request id sched-question-1 belongs to another request (by schedule:nightly); send this one under an id of its own',
    ],
  ]);
  // The schedule's question is still held and open: a CI gate on its id still waits.
  const held = (await listHeld(bench.table)).find((h) => h.requestId === 'sched-question-1');
  expect(held && { why: held.why, requester: held.requester }).toEqual({
    why: 'ask',
    requester: 'schedule:nightly',
  });
  const now = await outcomeNow(bench.table, 'sched-question-1');
  expect(now.exitCode, JSON.stringify(now)).toBeUndefined();
  expect(now.result).toBe('asked');

  // And the admin's Approve click must still count.
  const { app, requestLines } = questionWebhook(bench, { now: () => bench.clock.now.getTime() });
  const payload = blockActionsPayload({
    actionId: APPROVE_ACTION_ID,
    value,
    userId: 'U0ADMIN',
    responseUrl: bench.slack.url('/actions/T0001/1/click'),
  });
  await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), {
      timestamp: Math.floor(bench.clock.now.getTime() / 1000),
    }),
  );
  expect(requestLines().at(-1)?.outcome).toBe('queued');
});

it("a CI message cannot pre-empt an admin's Approve click by taking its copy's request id", async () => {
  // Another question; the id of its Approve copy is `<asked id>:approved-by:<user>`, predictable.
  const value = await askQuestion(bench, 'trg_hj2', 'sched-question-2');
  await bench.send({
    triggerId: 'trg_other2',
    phaseId: 'ph_9',
    requestId: 'sched-question-2:approved-by:U0ADMIN',
    requestedBy: { source: 'ci', id: 'blocked' },
  });
  await bench.run(bench.worker(), await bench.receive());
  const refusals = (await readRequestAudit(bench.table, 'sched-question-2:approved-by:U0ADMIN')).records.map(
    (r) => r.reason,
  );
  expect(refusals).toContain(
    "request id sched-question-2:approved-by:U0ADMIN is an Approve click's copy form: only slack requests may use it",
  );

  // U0ADMIN clicks Approve; the copy is queued and the worker runs it.
  const { app } = questionWebhook(bench, { now: () => bench.clock.now.getTime() });
  const payload = blockActionsPayload({
    actionId: APPROVE_ACTION_ID,
    value,
    userId: 'U0ADMIN',
    responseUrl: bench.slack.url('/actions/T0001/2/click'),
  });
  await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), {
      timestamp: Math.floor(bench.clock.now.getTime() / 1000),
    }),
  );
  await bench.run(bench.worker(), await bench.receive());

  // The admin (who holds the approve_phase grant) approved it: the phase must be approved.
  const final = await outcomeNow(bench.table, 'sched-question-2:approved-by:U0ADMIN');
  expect({ approvals: bench.approvals('trg_hj2'), final: final.result }, JSON.stringify(final)).toEqual({
    approvals: 1,
    final: 'approved',
  });
});

it.each([
  ['q-1:approved-by:U0ADMIN', 'slack'],
  ['slack-0123456789abcdef', 'slack'],
  ['ev:deploy-abc123:e1', 'events'],
  ['stale:cfg-abc123:never', 'schedule'],
] as const)("the derived id %s is its producer's (%s) alone", (requestId, owner) => {
  const request = (source: 'slack' | 'ci' | 'events' | 'schedule') =>
    ({
      version: 1,
      action: 'approve_phase',
      triggerId: 't',
      phaseId: 'p',
      requestedAt: '2026-11-23T09:00:00Z',
      requestedBy: { source, id: 'x' },
      requestId,
    }) as const;
  expect(reservedIdRefusal(request(owner))).toBeUndefined();
  for (const other of ['slack', 'ci', 'events', 'schedule'] as const)
    if (other !== owner) expect(reservedIdRefusal(request(other))?.rule).toBe('request-id-reserved');
  expect(reservedIdRefusal({ ...request('ci'), requestId: 'deploy-42' })).toBeUndefined();
});
