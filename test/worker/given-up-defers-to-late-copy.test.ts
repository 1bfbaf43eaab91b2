/**
 * A copy put back for a retry counts as live until its back-off ends plus a margin; a copy on its
 * last receive defers its give-up to it. The margin was 2 minutes, but a copy comes back when the
 * event source receives it, not when its visibility ends: behind a backlog (a low maxConcurrency),
 * it is received minutes later. Its entry had run out, so the other copy told "Gave up after 5
 * attempts" (and wrote the `dead-lettered` record the CI gate reads), and then the late copy made
 * the change and told "Done": two ends of one request. The margin is now twice the queue's
 * visibility timeout. Real worker on fauxqs and dynalite, the Console API sandbox, the Slack stand-in.
 */
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { copiesBench, twoCopies } from './copies.js';
import { onReceive } from './fixture.js';

const bench = copiesBench();

const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;
const postsAbout = (requestId: string) =>
  bench.slack.posts.map((p) => JSON.stringify(p.body)).filter((body) => body.includes(requestId));

it('a copy received minutes after its back-off (a backlog) is still deferred to: one end told', async () => {
  const requestId = 'ci-sent-twice-late';
  const phase = current('trg_4');
  const [copyA, copyB] = await twoCopies(bench, 'trg_4', requestId);
  const worker = bench.worker();

  // B is refused 429 with Retry-After 30 s: put back for about half a minute.
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  expect((await bench.run(worker, onReceive(copyB, 1))).batchItemFailures).toHaveLength(1);

  // Five minutes on, B still waits behind a backlog; A fails on its last receive: it tells nothing.
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  expect((await bench.run(worker, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
  expect(postsAbout(requestId)).toEqual([]);
  expect(await readAudit(bench.table, requestId)).toEqual([]);

  // B is received at last; the platform takes the call: B's end is the request's only end.
  bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  bench.clock.now = new Date('2026-11-23T10:05:10Z');
  expect((await bench.run(worker, onReceive(copyB, 2))).batchItemFailures).toEqual([]);
  expect(current('trg_4')).not.toBe(phase);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['approved']);
  expect(postsAbout(requestId).some((body) => /gave up|could not|after 5 attempts/i.test(body))).toBe(false);
});
