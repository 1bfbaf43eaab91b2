/**
 * The release tick counts a wait as "sent back" (`releases`) before it sends it, and a send that
 * fails (the queue unreachable for a while) is never taken back. Three failed sends, 15 minutes
 * apart, and the wait is *stuck* for good: `held` says "sent back 3 times (see the DLQ)", though
 * no copy ever reached the queue and the DLQ holds nothing; the tick never sends it again, so the
 * request is never looked at again, never released, never expired, and nobody is told. The
 * release tick on the emulators, with an SQS client whose sends fail during a 30-minute outage.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { endHold, holdRequest, listHeld, nextLookText } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from './fixture.js';
import { releaseDeps } from './questions.js';

const bench = benchResetEachTest();

it('sends a wait back once the queue answers again, after sends that failed during an outage', async () => {
  const since = '2026-11-23T10:00:00.000Z';
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'x' },
    requestedAt: since,
    requestId: 'outage-1',
  } as const;
  await holdRequest(
    bench.table,
    {
      requestId: 'outage-1',
      action: 'approve_phase',
      target: 'trigger trg_1 phase ph_1',
      requester: 'ci:x',
      why: 'window',
      rule: 'r',
      reason: 'r',
      since,
      nextLook: since,
      request,
    },
    bench.clock.now,
  );

  const tick = releaseDeps(bench);
  const down: Pick<SQSClient, 'send'> = {
    send: async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'ECONNREFUSED' });
    },
  };
  // The queue is unreachable for half an hour: every tick's send fails.
  for (const hhmm of ['10:01', '10:16', '10:31']) {
    const summary = await releaseHeld({ ...tick, sqs: down }, new Date(`2026-11-23T${hhmm}:00Z`));
    expect(summary.released).toEqual([]);
  }
  // Nothing was ever sent, so nothing came back dead-lettered: the wait is not stuck.
  const [held] = await listHeld(bench.table);
  expect(nextLookText(held!)).not.toContain('stuck');

  // The queue answers again: the next tick due sends the wait back.
  const after = await releaseHeld(tick, new Date('2026-11-23T10:46:00Z'));
  expect(after.released).toEqual(['outage-1']);
  expect((await bench.receive()).Records).toHaveLength(1);
  await endHold(bench.table, 'outage-1');
});
