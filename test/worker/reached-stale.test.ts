/**
 * An approval whose answer was lost (a timeout in flight, a 5xx after the platform acted, a crash
 * mid-call) is retried through the queue. The retry's call then meets the phaseID guard: the
 * phase moved on, very likely because of our own earlier attempt. The request must not be told
 * as a plain "stale" (nothing happened): the reason says an earlier attempt may have approved it.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { effectKey } from '../../src/actions/request.js';
import { readAudit } from '../../src/state/audit.js';
import { claimEffect } from '../../src/state/effects.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { benchResetEachTest } from './fixture.js';

// One attempt per call, so the in-call retry (which already says so) is not what is tested.
// 1 s: a timeout in flight is the fault injected; a loaded machine must not turn a plain call into one.
const bench = benchResetEachTest({ client: { timeoutMs: 1_000, maxRetries: 0 } });
let worker: WorkerHandler;

beforeAll(async () => {
  worker = bench.worker();
});
beforeEach(async () => {
  bench.api.sandbox.setFaults({ hangAfterEffectRate: 0 });
});

const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;

describe('an approval retried after its earlier attempt may have reached the platform', () => {
  it('says on the redelivery that the earlier attempt may have approved the phase', async () => {
    expect(current('trg_1')).toBe('ph_1');
    await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'reached-1' });
    const event = await bench.receive();
    bench.api.sandbox.setFaults({ hangAfterEffectRate: 1, only: 'mutations' });
    try {
      expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    } finally {
      bench.api.sandbox.setFaults({ hangAfterEffectRate: 0 });
    }
    // The platform approved it; only the answer was lost.
    expect(current('trg_1')).toBe('ph_2');

    // SQS delivers the message again.
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    const audit = await readAudit(bench.table, 'reached-1');
    expect(audit.map((r) => r.result)).toEqual(['stale']);
    expect(audit[0]?.reason).toMatch(/earlier attempt .*may have been .*approved/);
  });

  it('keeps the mark through a later delivery that provably did not reach the platform (a 429)', async () => {
    expect(current('trg_4')).toBe('ph_1');
    await bench.send({ triggerId: 'trg_4', phaseId: 'ph_1', requestId: 'reached-429' });
    const event = await bench.receive();
    try {
      bench.api.sandbox.setFaults({ hangAfterEffectRate: 1, only: 'mutations' });
      expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
      bench.api.sandbox.setFaults({ hangAfterEffectRate: 0, rateLimitRate: 1, retryAfterSeconds: 1 });
      expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    } finally {
      bench.api.sandbox.setFaults({ hangAfterEffectRate: 0, rateLimitRate: 0 });
    }
    expect(current('trg_4')).toBe('ph_2');
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    const [record] = await readAudit(bench.table, 'reached-429');
    expect(record?.result).toBe('stale');
    expect(record?.reason).toMatch(/earlier attempt .*may have been .*approved/);
  });

  it('says so too after a worker crashed mid-call (its lock expired, never released)', async () => {
    const request = { triggerId: 'trg_2', phaseId: 'ph_1', requestId: 'reached-2' };
    expect(current('trg_2')).toBe('ph_1');
    await bench.send(request);
    const event = await bench.receive();
    // A copy claimed the effect, called the platform (which approved) and died before it could
    // store anything: its lock is past.
    const now = bench.clock.now.getTime();
    const key = effectKey({
      version: 1,
      action: 'approve_phase',
      requestedBy: { source: 'ci', id: 'x' },
      requestedAt: bench.clock.now.toISOString(),
      ...request,
    });
    expect(
      await claimEffect(bench.table, key, { owner: 'crashed', lockExpiresAt: now - 1, nowMs: now - 60_000 }),
    ).toMatchObject({ claimed: true });
    bench.api.sandbox.state.triggers.get('trg_2')!.currentPhaseID = 'ph_2';

    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    const [record] = await readAudit(bench.table, 'reached-2');
    expect(record?.result).toBe('stale');
    expect(record?.reason).toMatch(/earlier attempt .*may have been .*approved/);
  });

  it('keeps a plain stale when no earlier attempt can have reached the platform', async () => {
    await bench.send({ triggerId: 'trg_3', phaseId: 'ph_3', requestId: 'plain-stale' });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    const [record] = await readAudit(bench.table, 'plain-stale');
    expect(record?.result).toBe('stale');
    expect(record?.reason).not.toMatch(/earlier attempt/);
  });
});
