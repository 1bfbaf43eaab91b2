/**
 * The effect claim is per change, not per request: a request whose last receive finds ANOTHER
 * request's claim on the same change (that request is calling now) is put back to wait for it. That
 * failure counted as "another copy handles it" (`otherCopy`): its give-up told nothing, although
 * the claim's holder is no copy of this request and never tells this request's people. One copy
 * alone was never told any end; a copy a give-up had deferred to (a producer that retried its
 * SendMessage) ended silently too, so nobody told. Waiting on another request's claim is now this
 * request's own failure: on its last receive it is told "given up" (and audited for the CI gate).
 * The other request's call is landed with a hook (no sleeping): while it holds the claim, this
 * request's copy runs. Real worker on fauxqs and dynalite, the Console API sandbox, the Slack stand-in.
 */
import type { SQSEvent } from 'aws-lambda';
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { anotherRequestCalls, copiesBench, twoCopies } from './copies.js';
import { onReceive } from './fixture.js';

const bench = copiesBench();

const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;
const postsAbout = (requestId: string) =>
  bench.slack.posts.map((p) => JSON.stringify(p.body)).filter((body) => body.includes(requestId));
/** Where the request was told it was given up: its requester's reply URL and the channel, once each. */
const givenUpTold = (requestId: string) =>
  bench.slack.posts
    .filter(
      (p) => /after 5 attempts/.test(JSON.stringify(p.body)) && JSON.stringify(p.body).includes(requestId),
    )
    .map((p) => p.path)
    .sort();

/**
 * Another request for the same phase is sent and run; while its call holds the effect claim, this
 * request's `copy` runs on its last receive. Answers that copy's run; the phase has moved.
 */
async function lastReceiveWhileAnotherRequestCalls(triggerId: string, phaseId: unknown, copy: SQSEvent) {
  // (The copy's message stays in the queue, its receipt handle valid: no purge here.)
  let run: Awaited<ReturnType<typeof bench.run>> | undefined;
  await anotherRequestCalls(
    bench,
    { triggerId, phaseId, requestId: `${triggerId}-other-request` },
    async () => {
      run = await bench.run(bench.worker(), onReceive(copy, MAX_RECEIVE_COUNT));
    },
  );
  expect(current(triggerId)).not.toBe(phaseId);
  expect(JSON.stringify(bench.logs)).toContain('is being executed by another');
  return run;
}

it('one copy on its last receive waiting for another request calling the same change is told given up', async () => {
  const requestId = 'ci-waits-on-other-request';
  const phaseId = current('trg_5');
  await bench.send({
    triggerId: 'trg_5',
    phaseId,
    requestId,
    reply: { slackResponseUrl: bench.slack.url(`/actions/${requestId}`) },
  });
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);

  const run = await lastReceiveWhileAnotherRequestCalls('trg_5', phaseId, copy);
  expect(run?.batchItemFailures).toHaveLength(1);
  expect(givenUpTold(requestId)).toEqual([`/actions/${requestId}`, '/services/channel']);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['dead-lettered']);
});

it('the live copy a give-up deferred to, waiting on another request at its last receive, tells it', async () => {
  const requestId = 'ci-sent-twice-other-request';
  const phaseId = current('trg_8');
  const [copyA, copyB] = await twoCopies(bench, 'trg_8', requestId);
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  const plain = bench.worker();

  // B is refused 429 on its 4th receive (registered live, 15 min); A gives up on its last and defers to B.
  expect((await bench.run(plain, onReceive(copyB, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(1);
  bench.clock.now = new Date('2026-11-23T10:00:05Z');
  expect((await bench.run(plain, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
  expect(postsAbout(requestId)).toEqual([]);

  // B comes back for its last receive while another request for the same phase is being executed.
  bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  bench.clock.now = new Date('2026-11-23T10:15:05Z');
  const run = await lastReceiveWhileAnotherRequestCalls('trg_8', phaseId, copyB);
  expect(run?.batchItemFailures).toHaveLength(1);

  // Both copies of the request are gone (DLQ): its people and the CI gate hear its end, once.
  expect(givenUpTold(requestId)).toEqual([`/actions/${requestId}`, '/services/channel']);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['dead-lettered']);
});
