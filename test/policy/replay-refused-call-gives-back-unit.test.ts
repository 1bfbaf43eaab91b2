/**
 * `policy replay` rebuilds the new policy's counters as the worker keeps them. The worker gives a
 * unit back when the platform refused its call and changed nothing (stale, rejected: a 400 for a
 * phase no longer current, a 404 for a deleted config): the replay took the unit anyway, so a
 * later approval in the same hour was replayed as "limit reached" where the worker approved it.
 */
import { describe, expect, it } from 'vitest';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';
import { ciApprovalRecord, policyWith, testPolicyInput } from './fixtures.js';

/** The test policy with its CI rule limited to one approval an hour. */
const onePerHour = policyWith({
  approvals: {
    ...testPolicyInput.approvals,
    rules: testPolicyInput.approvals.rules.map((rule) =>
      rule.name === 'CI in office hours' ? { ...rule, maxPerHour: 1 } : rule,
    ),
  },
});

function record(requestId: string, decidedAt: string, result: string, extra: Partial<RecordedDecision> = {}) {
  const target = `trg_1/${requestId}`;
  return ciApprovalRecord({ requestId, target, rule: 'CI in office hours', result, ...extra }, decidedAt);
}

describe('policy replay and a call the platform refused', () => {
  // Monday 09:30 and 09:40 in Berlin (office hours), one approval an hour.
  const refused = record('ph_old', '2026-11-23T08:30:00.000Z', 'stale', {
    reason: 'stale request: Phase ph_old is not the current phase',
  });
  const next = record('ph_new', '2026-11-23T08:40:00.000Z', 'approved');

  it('gives the unit of a refused call back, so the hour’s next approval is replayed as approved', () => {
    const report = replayDecisions(onePerHour, [refused, next]);
    expect(report.replayed).toBe(2);
    expect(report.changes).toEqual({});
    expect(report.unchanged).toBe(2);
  });

  it('keeps the unit of a refusal that may have been done by an earlier attempt', () => {
    const maybe = { ...refused, mayHaveBeenDone: true };
    const report = replayDecisions(onePerHour, [maybe, next]);
    // The refused call's unit stays taken (its change may be made): the next approval is over the limit.
    expect(Object.values(report.changes).reduce((a, b) => a + b, 0)).toBe(1);
  });
});
