/**
 * A producer that retries SendMessage puts one request on the queue twice, as two messages. When
 * one copy is put back with a back-off (a 429) and the other reaches its last receive and fails,
 * the request is not over: the waiting copy comes back and ends it. The worker told "Gave up
 * after 5 attempts" on the last receive and, once the waiting copy ran, the request's real end: two
 * different ends of one request. The give-up now defers to a copy registered as waiting (no post,
 * no `dead-lettered` record for the CI gate), and the waiting copy's end is the only one told.
 * Real worker on fauxqs and dynalite, the Console API sandbox refusing with 429s, the Slack stand-in.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { copiesBench, twoCopies } from './copies.js';
import { onReceive } from './fixture.js';

const bench = copiesBench();

const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;
const postsAbout = (requestId: string) =>
  bench.slack.posts.map((p) => JSON.stringify(p.body)).filter((body) => body.includes(requestId));

describe('a request whose other copy waits in its back-off', () => {
  it('is not told given up by the copy on its last receive: the waiting copy ends it, told once', async () => {
    const worker = bench.worker();
    const phase = current('trg_4');
    const [copyA, copyB] = await twoCopies(bench, 'trg_4', 'ci-sent-twice');
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });

    // Copy B is refused (429) on its first receive and put back for its back-off.
    expect((await bench.run(worker, onReceive(copyB, 1))).batchItemFailures).toHaveLength(1);
    // Copy A, a few seconds later, fails on its last receive: B is still waiting to come back.
    bench.clock.now = new Date('2026-11-23T10:00:05Z');
    expect((await bench.run(worker, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
    expect(postsAbout('ci-sent-twice')).toEqual([]);
    // The CI gate keeps waiting: no `dead-lettered` ending for it to read.
    expect(await readAudit(bench.table, 'ci-sent-twice')).toEqual([]);
    expect(bench.logs.some((l) => l.message.includes('defers to'))).toBe(true);

    // B's back-off ends; the platform takes the call now: B ends the request, and only that is told.
    bench.api.sandbox.setFaults({ rateLimitRate: 0 });
    bench.clock.now = new Date('2026-11-23T10:00:40Z');
    expect((await bench.run(worker, onReceive(copyB, 2))).batchItemFailures).toEqual([]);
    expect(current('trg_4')).not.toBe(phase);
    const results = (await readAudit(bench.table, 'ci-sent-twice')).map((r) => r.result);
    expect(results).toEqual(['approved']);
    const told = postsAbout('ci-sent-twice');
    expect(told.length).toBeGreaterThan(0);
    expect(told.some((body) => /gave up|could not/i.test(body))).toBe(false);
  });

  it("is told given up when the other copy's back-off ran out long ago (that copy is gone)", async () => {
    const worker = bench.worker();
    const [copyA, copyB] = await twoCopies(bench, 'trg_6', 'ci-sent-twice-gone');
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
    expect((await bench.run(worker, onReceive(copyB, 1))).batchItemFailures).toHaveLength(1);

    // An hour later B has not come back (its registration says until when it would): A tells.
    bench.clock.now = new Date('2026-11-23T11:00:00Z');
    expect((await bench.run(worker, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
    expect((await readAudit(bench.table, 'ci-sent-twice-gone')).map((r) => r.result)).toEqual([
      'dead-lettered',
    ]);
    expect(postsAbout('ci-sent-twice-gone').some((body) => body.includes('after 5 attempts'))).toBe(true);
  });
});
