/**
 * How a request ended, from its audit records (`endingOf`, read by `enqueue --wait` and `why`):
 * a completed mutation has no final item, a redelivered copy adds a "replayed" record after
 * the ending it repeats, and a request whose change another made has only the replay.
 */
import { describe, expect, it } from 'vitest';
import { CHANGE_MADE, endingOf } from '../../src/audit/story.js';
import type { StoredAuditRecord } from '../../src/state/audit.js';

const step = (at: string, result: string, extra: Partial<StoredAuditRecord> = {}): StoredAuditRecord => ({
  requestId: 'r-1',
  at,
  action: 'approve_phase',
  target: 'trigger trg_1 phase ph_1',
  effectKey: 'approve_phase#trg_1#ph_1',
  requester: 'ci:deploy',
  rule: 'CI in office hours',
  reason: result,
  result,
  dryRun: false,
  ...extra,
});

describe('endingOf', () => {
  it('is undefined while the request waits', () => {
    expect(endingOf('r-1', [step('2026-11-23T20:00:00Z', 'deferred')])).toBeUndefined();
    expect(endingOf('r-1', [])).toBeUndefined();
  });

  it('reads a completed mutation from its records (it has no final item)', () => {
    const ending = endingOf('r-1', [
      step('2026-11-23T20:00:00Z', 'deferred'),
      step('2026-11-24T09:05:00Z', 'approved'),
    ]);
    expect(ending).toMatchObject({ result: 'approved', at: '2026-11-24T09:05:00Z' });
    expect(CHANGE_MADE.has(ending?.result ?? '')).toBe(true);
  });

  it('keeps the ending when a redelivered copy of the same request replays it later', () => {
    const records = [
      step('2026-11-24T09:05:00Z', 'approved'),
      step('2026-11-24T09:06:00Z', 'replayed', { replayOf: 'r-1' }),
    ];
    expect(endingOf('r-1', records)?.result).toBe('approved');
    const denied = [
      step('2026-11-24T09:05:00Z', 'denied'),
      step('2026-11-24T09:06:00Z', 'replayed', { replayOf: 'r-1' }),
    ];
    expect(CHANGE_MADE.has(endingOf('r-1', denied)?.result ?? '')).toBe(false);
  });

  it('counts a replay of the change another request made as done', () => {
    const ending = endingOf('r-1', [step('2026-11-24T09:06:00Z', 'replayed', { replayOf: 'r-0' })]);
    expect(ending?.result).toBe('replayed');
    expect(CHANGE_MADE.has('replayed')).toBe(true);
  });

  it('prefers the recorded final, and treats cancelled and dead-lettered as endings without the change', () => {
    const final = { result: 'cancelled', rule: 'cancel', reason: 'by slack:U1', requestId: 'r-1', at: 'x' };
    expect(endingOf('r-1', [step('2026-11-24T09:00:00Z', 'deferred')], final)).toBe(final);
    expect(endingOf('r-1', [step('2026-11-24T09:00:00Z', 'dead-lettered')])?.result).toBe('dead-lettered');
    expect(CHANGE_MADE.has('dead-lettered')).toBe(false);
  });
});
