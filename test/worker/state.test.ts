import { describe, expect, it } from 'vitest';
import { readAudit, readFinal, recordFinal, writeAudit } from '../../src/state/audit.js';
import { consumeCounter, refundCounter } from '../../src/state/counters.js';
import { claimEffect, completeEffect, readEffect, releaseEffect } from '../../src/state/effects.js';
import { claimNotice, noticeTold, releaseNotice } from '../../src/state/telling.js';
import { readVeto, writeVeto } from '../../src/state/veto.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { table } = emulatorsForFile();

const now = new Date('2026-11-23T10:00:00Z');
const outcome = { result: 'approved', reason: 'done', rule: 'r', requestId: 'req-1', at: now.toISOString() };

describe('effect claims', () => {
  it('lets exactly one of many concurrent claimants win', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        claimEffect(table, 'effect-race', { owner: `o${i}`, lockExpiresAt: Date.now() + 60_000 }),
      ),
    );
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    for (const r of results.filter((r) => !r.claimed)) {
      expect(r).toMatchObject({ claimed: false, state: { status: 'in-progress' } });
    }
  });

  it('replays a completed effect instead of granting a new claim', async () => {
    expect(
      await claimEffect(table, 'effect-done', { owner: 'a', lockExpiresAt: Date.now() + 60_000 }),
    ).toEqual({
      claimed: true,
      earlierMayHaveReached: false,
    });
    await completeEffect(table, 'effect-done', 'a', outcome, new Date('2026-11-23T10:00:00Z'));
    const again = await claimEffect(table, 'effect-done', { owner: 'b', lockExpiresAt: Date.now() + 60_000 });
    expect(again).toEqual({ claimed: false, state: { status: 'completed', outcome } });
  });

  it('frees a claim whose lock expired (a crashed worker) and a released claim', async () => {
    await claimEffect(table, 'effect-crash', { owner: 'a', lockExpiresAt: Date.now() - 1 });
    expect((await readEffect(table, 'effect-crash')).status).toBe('free');
    expect(
      (await claimEffect(table, 'effect-crash', { owner: 'b', lockExpiresAt: Date.now() + 60_000 })).claimed,
    ).toBe(true);
    await releaseEffect(table, 'effect-crash', 'someone-else');
    expect((await readEffect(table, 'effect-crash')).status).toBe('in-progress');
    await releaseEffect(table, 'effect-crash', 'b');
    expect((await readEffect(table, 'effect-crash')).status).toBe('free');
  });
});

describe('counters', () => {
  const counter = {
    key: 'rule#ci#hour',
    limit: 3,
    windowStart: new Date('2026-11-23T10:00:00Z'),
    windowEnd: new Date('2026-11-23T11:00:00Z'),
  };

  it('never lets concurrent increments pass the limit', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => consumeCounter(table, counter)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(
      results
        .filter((r) => r.ok)
        .map((r) => (r.ok ? r.count : 0))
        .sort(),
    ).toEqual([1, 2, 3]);
  });

  it('gives a unit back after a refund, and counts each window apart', async () => {
    await refundCounter(table, counter);
    expect(await consumeCounter(table, counter)).toEqual({ ok: true, count: 3 });
    expect(await consumeCounter(table, counter)).toEqual({ ok: false, limit: 3 });
    const next = { ...counter, windowStart: counter.windowEnd, windowEnd: new Date('2026-11-23T12:00:00Z') };
    expect(await consumeCounter(table, next)).toEqual({ ok: true, count: 1 });
  });
});

describe('vetoes and audit records', () => {
  it('reads back a veto, and nothing for an effect without one', async () => {
    await writeVeto(table, 'approve_phase#trg_1#ph_2', { by: 'U1', at: now, reason: 'not today' });
    expect(await readVeto(table, 'approve_phase#trg_1#ph_2')).toEqual({
      by: 'U1',
      at: now.toISOString(),
      reason: 'not today',
    });
    expect(await readVeto(table, 'approve_phase#trg_1#ph_3')).toBeUndefined();
  });

  it('keeps every record of a request, with a 90-day expiry, and notifies once per topic', async () => {
    const base = {
      requestId: 'req-a',
      action: 'approve_phase',
      target: 't',
      effectKey: 'k',
      requester: 'ci:x',
      rule: 'r',
      reason: 'why',
      dryRun: false,
    };
    await writeAudit(table, { ...base, at: now, result: 'deferred', deferUntil: now.toISOString() });
    await writeAudit(table, { ...base, at: new Date(now.getTime() + 1000), result: 'approved' });
    const records = await readAudit(table, 'req-a');
    expect(records.map((r) => r.result)).toEqual(['deferred', 'approved']);
    // A notice (a question here) is claimed under a lease, given back by its claimer only, and
    // marked told for good after its posts.
    const claim = (owner: string, nowMs = now.getTime()) => ({ owner, nowMs, untilMs: nowMs + 60_000 });
    expect(await claimNotice(table, 'req-a', 'ask', claim('copy-1'))).toBe(true);
    expect(await claimNotice(table, 'req-a', 'ask', claim('copy-2'))).toBe(false);
    await releaseNotice(table, 'req-a', 'ask', 'copy-2');
    expect(await claimNotice(table, 'req-a', 'ask', claim('copy-2'))).toBe(false);
    await releaseNotice(table, 'req-a', 'ask', 'copy-1');
    expect(await claimNotice(table, 'req-a', 'ask', claim('copy-2'))).toBe(true);
    await noticeTold(table, 'req-a', 'ask', 'copy-2', now);
    expect(await claimNotice(table, 'req-a', 'ask', claim('copy-3', now.getTime() + 3_600_000))).toBe(false);
  });

  it('keeps the first final outcome of a request', async () => {
    const final = { result: 'stale', reason: 'r', rule: 'x', requestId: 'req-f', at: now.toISOString() };
    expect(await readFinal(table, 'req-f')).toBeUndefined();
    expect(await recordFinal(table, final, now, undefined)).toBe(true);
    expect(await recordFinal(table, { ...final, result: 'approved' }, now, undefined)).toBe(false);
    expect(await readFinal(table, 'req-f')).toEqual(final);
    // Whose request ended is kept beside the outcome.
    const owner = { requester: 'ci:deploy', effectKey: 'approve_phase~t~p' };
    expect(await recordFinal(table, { ...final, requestId: 'req-g' }, now, owner)).toBe(true);
    expect(await readFinal(table, 'req-g')).toEqual({ ...final, requestId: 'req-g', owner });
  });
});
