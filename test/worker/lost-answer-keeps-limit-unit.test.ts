/**
 * `maxPerHour` is a cap on changes. A call whose answer was lost after it reached the platform (a
 * timeout in flight, a broken connection) may have made its change, yet the worker gave its limit
 * unit back as if nothing had happened: the next request within the hour was approved too, and a
 * request that then gave up left a change no counter counted. The unit is now kept when the
 * attempt may have reached the platform, and given back only when it surely did nothing (a 429);
 * the request's own retry does not take a second unit for the same change.
 *
 * The Console API is the sandbox over HTTP; a fetch in front of it (lost-answer.ts) loses one
 * answer after the sandbox acted, or answers 429 before the call reaches it. The client does not
 * retry, so the worker sees the failure.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { onReceive } from './fixture.js';
import { lostAnswerBench } from './lost-answer.js';

const { bench, platform } = lostAnswerBench({ maxRetries: 0, conflicts: false });

/** `ci:limited` may approve once an hour (the bench policy's "limited CI"). */
const limited = { source: 'ci', id: 'limited' } as const;

function phaseOf(triggerId: string): string {
  return bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID as string;
}

/** The event holding only `requestId`'s message. */
function only(event: SQSEvent, requestId: string): SQSEvent {
  return { Records: event.Records.filter((r) => r.body.includes(`"requestId":"${requestId}"`)) };
}

describe('maxPerHour 1 after a call whose answer was lost', () => {
  it('defers another target’s request within the hour: the lost call may have made its change', async () => {
    await bench.send({
      triggerId: 'trg_1',
      phaseId: phaseOf('trg_1'),
      requestId: 'lost-1',
      requestedBy: limited,
    });
    platform.loseAnswers = 1;
    const first = only(await bench.receive(), 'lost-1');
    const failed = await bench.run(platform.worker, first);
    expect(failed.batchItemFailures).toHaveLength(1); // retried through the queue
    expect(bench.approvals('trg_1')).toBe(1); // the platform made the change

    bench.clock.now = new Date('2026-11-23T10:20:00Z');
    await bench.send({
      triggerId: 'trg_2',
      phaseId: phaseOf('trg_2'),
      requestId: 'next-1',
      requestedBy: limited,
    });
    await bench.run(platform.worker, only(await bench.receive(), 'next-1'));

    expect(bench.approvals('trg_2')).toBe(0);
    expect((await listHeld(bench.table)).map((h) => [h.requestId, h.why])).toEqual([['next-1', 'limit']]);
  });

  it('lets the request’s own retry through without a second unit', async () => {
    bench.clock.now = new Date('2026-11-23T11:00:00Z'); // an hour of its own
    await bench.send({
      triggerId: 'trg_3',
      phaseId: phaseOf('trg_3'),
      requestId: 'lost-2',
      requestedBy: limited,
    });
    platform.loseAnswers = 1;
    const first = only(await bench.receive(), 'lost-2');
    await bench.run(platform.worker, first);

    // The redelivery meets the phase guard (its own first attempt moved the trigger on).
    await bench.run(platform.worker, onReceive(first, 2));
    const final = await readFinal(bench.table, 'lost-2');
    expect(final?.result).toBe('stale');
    expect(final?.mayHaveBeenDone).toBe(true);
    expect((await listHeld(bench.table)).filter((h) => h.requestId === 'lost-2')).toEqual([]);
  });

  it('gives the unit back after a 429: the platform did nothing', async () => {
    bench.clock.now = new Date('2026-11-23T12:00:00Z');
    await bench.send({
      triggerId: 'trg_4',
      phaseId: phaseOf('trg_4'),
      requestId: 'rl-3',
      requestedBy: limited,
    });
    platform.rateLimit = 1;
    const failed = await bench.run(platform.worker, only(await bench.receive(), 'rl-3'));
    expect(failed.batchItemFailures).toHaveLength(1);
    expect(bench.approvals('trg_4')).toBe(0);

    await bench.send({
      triggerId: 'trg_5',
      phaseId: phaseOf('trg_5'),
      requestId: 'next-3',
      requestedBy: limited,
    });
    await bench.run(platform.worker, only(await bench.receive(), 'next-3'));
    expect(bench.approvals('trg_5')).toBe(1);
  });
});
