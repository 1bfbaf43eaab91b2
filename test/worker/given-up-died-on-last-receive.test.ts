/**
 * A copy whose invocation dies on its last receive (a Lambda timeout, an out-of-memory kill, a
 * crash) runs no catch block: give-up.ts never ran for it, SQS moved it to the DLQ, and nobody was
 * told, the requester's last word being "queued"; nor when another copy's give-up had deferred to
 * it. The worker now marks each last receive before any work, and the release tick, once the
 * attempt is surely over, tells the give-up unless the request ended otherwise.
 * Real worker on fauxqs and dynalite (its table stops answering at the death), the Console API
 * sandbox, the Slack stand-in, and the deployed tick (the worker's entry, a scheduled event).
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { copiesBench, twoCopies } from './copies.js';
import {
  channelPostsAbout,
  copyTrigger,
  dyingAtStateRead,
  onReceive,
  requesterPostsAbout,
  sendAndReceive,
} from './fixture.js';
import { deployedTickAt } from './stuck.js';

const bench = copiesBench();

/** The release tick's metric lines (EMF), as CloudWatch would read them. */
const metricLines: Record<string, unknown>[] = [];
const metrics = createMetrics({
  service: 'worker',
  sink: (line) => metricLines.push(JSON.parse(line) as Record<string, unknown>),
  now: () => bench.clock.now.getTime(),
});

/** The deployed release tick, run as if at `iso`. */
const tickAt = (iso: string) => deployedTickAt(bench, iso, metrics);

const requesterPosts = (id: string) => requesterPostsAbout(bench, id);
const channelPosts = (id: string) => channelPostsAbout(bench, id, 0);

/** One request for a fresh trigger's current phase, with a reply URL: its one message, received. */
async function oneRequest(id: string): Promise<SQSEvent> {
  copyTrigger(bench, `trg_${id}`);
  const event = await sendAndReceive(bench, id);
  expect(event.Records).toHaveLength(1);
  return event;
}

/** The worker on `event`'s last receive dies at its read of the request's state (nothing after runs). */
async function diesOnLastReceive(event: SQSEvent, id: string): Promise<void> {
  const dying = dyingAtStateRead(bench, id);
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, MAX_RECEIVE_COUNT));
  await dying.died;
}

describe('a copy that dies on its last receive', () => {
  it('is told given up by the release tick once its attempt is surely over, once', async () => {
    const id = 'ci-died-last';
    const event = await oneRequest(id);
    await diesOnLastReceive(event, id);

    // 10:00:20: the invocation (20 s) may still be running: nothing is told yet.
    expect((await tickAt('2026-11-23T10:00:20Z')).givenUp).toEqual([]);
    expect(requesterPosts(id)).toEqual([]);

    // 10:02: it is surely over. Its requester and the channel hear the give-up, once.
    expect((await tickAt('2026-11-23T10:02:00Z')).givenUp).toEqual([id]);
    const told = requesterPosts(id);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`after ${MAX_RECEIVE_COUNT} attempts`);
    expect(told[0]).toContain('stopped (a timeout or a crash)');
    expect(told[0]).toContain('dead-letter queue');
    expect(channelPosts(id)).toHaveLength(1);
    // Counted as the worker's own give-up is: in DeadLettered and in the dashboard's Decisions graph.
    const mine = metricLines.filter((l) => l.requestId === id);
    expect(mine.filter((l) => 'DeadLettered' in l).map((l) => l.Reason)).toEqual(['retries-exhausted']);
    expect(mine.filter((l) => 'Decisions' in l).map((l) => [l.Action, l.Outcome])).toEqual([
      ['approve_phase', 'retries-exhausted'],
    ]);
    const records = await readAudit(bench.table, id);
    expect(records.map((r) => [r.result, r.messageId, r.mayHaveBeenDone])).toEqual([
      ['dead-lettered', event.Records[0]!.messageId, false],
    ]);

    // The next tick tells nothing again.
    expect((await tickAt('2026-11-23T10:03:00Z')).givenUp).toEqual([]);
    expect(requesterPosts(id)).toHaveLength(1);
    expect(channelPosts(id)).toHaveLength(1);
  });

  it('is not told given up when another copy of the request ended it', async () => {
    const id = 'ci-died-other-ends';
    copyTrigger(bench, 'trg_dl2');
    const [copyA, copyB] = await twoCopies(bench, 'trg_dl2', id);
    await diesOnLastReceive(copyA, id);
    // The other copy comes and approves the phase: the request's end.
    expect((await bench.run(bench.worker(), onReceive(copyB, 1))).batchItemFailures).toEqual([]);

    expect((await tickAt('2026-11-23T10:02:00Z')).givenUp).toEqual([]);
    expect((await readAudit(bench.table, id)).map((r) => r.result)).toEqual(['approved']);
    const told = [...requesterPosts(id), ...channelPosts(id)];
    expect(told.length).toBeGreaterThan(0);
    expect(told.some((body) => /gave up|could not/i.test(body))).toBe(false);
  });

  it('tells the give-up that deferred to it, with its failure, ending both copies', async () => {
    const id = 'ci-died-deferred-to';
    copyTrigger(bench, 'trg_dl3');
    const [copyA, copyB] = await twoCopies(bench, 'trg_dl3', id);
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
    // B is refused (429) on its 4th receive and put back: live. A fails on its last receive: it defers to B.
    expect(
      (await bench.run(bench.worker(), onReceive(copyB, MAX_RECEIVE_COUNT - 1))).batchItemFailures,
    ).toHaveLength(1);
    expect(
      (await bench.run(bench.worker(), onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures,
    ).toHaveLength(1);
    const deferral = bench.logs.find(
      (l) => l.requestId === id && l.message.includes('defers to the live copy'),
    );
    expect(deferral?.lastFailure).toEqual(expect.any(String));
    expect(requesterPosts(id)).toEqual([]);
    // B comes back for its last receive, and dies.
    bench.clock.now = new Date('2026-11-23T10:00:40Z');
    await diesOnLastReceive(copyB, id);

    expect((await tickAt('2026-11-23T10:03:00Z')).givenUp).toEqual([id]);
    const told = requesterPosts(id);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(String(deferral?.lastFailure).slice(0, 40));
    expect(told[0]).not.toContain('stopped (a timeout or a crash)');
    const records = await readAudit(bench.table, id);
    expect(records).toHaveLength(1);
    // The record is B's; A's gate waits on A's message id: it is named among those the record ends.
    expect(records[0]).toMatchObject({
      result: 'dead-lettered',
      messageId: copyB.Records[0]!.messageId,
      endsMessages: [copyA.Records[0]!.messageId],
    });
  });

  it('that gave up itself (told then) is not told again by the tick', async () => {
    const id = 'ci-gave-up-itself';
    const event = await oneRequest(id);
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
    expect(
      (await bench.run(bench.worker(), onReceive(event, MAX_RECEIVE_COUNT))).batchItemFailures,
    ).toHaveLength(1);
    expect(requesterPosts(id)).toHaveLength(1);

    expect((await tickAt('2026-11-23T10:02:00Z')).givenUp).toEqual([]);
    expect(requesterPosts(id)).toHaveLength(1);
    expect((await readAudit(bench.table, id)).map((r) => r.result)).toEqual(['dead-lettered']);
  });

  it('is told once when two ticks look at it at the same time', async () => {
    const id = 'ci-died-two-ticks';
    const event = await oneRequest(id);
    await diesOnLastReceive(event, id);

    const [one, two] = await Promise.all([tickAt('2026-11-23T10:02:00Z'), tickAt('2026-11-23T10:02:00Z')]);
    expect([...one.givenUp, ...two.givenUp]).toEqual([id]);
    expect(requesterPosts(id)).toHaveLength(1);
    expect(channelPosts(id)).toHaveLength(1);
    expect((await readAudit(bench.table, id)).map((r) => r.result)).toEqual(['dead-lettered']);
  });
});
