/**
 * `policy replay` rebuilds the new policy's counters in the order the worker took its units: by
 * decision time. The audit record's own time is when the request finished (after the Console
 * API call), so a slow approval decided first is written after a quick one decided later. Ordered
 * by write time, the replay gave the last unit of the hour to the wrong request and reported two
 * changes where the same policy changes nothing.
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

function record(requestId: string, decidedAt: string, writtenAt: string, result: string): RecordedDecision {
  const target = `trg_1/${requestId}`;
  return ciApprovalRecord(
    { requestId, target, rule: 'CI in office hours', result, at: writtenAt },
    decidedAt,
  );
}

describe('policy replay orders records by decision time', () => {
  it('gives the hour’s unit to the request decided first, not the one written first', () => {
    // Monday 09:30 in Berlin (office hours). "slow" took the unit and finished 9 s later; "quick",
    // decided 2 s after it, found the hour full and was deferred, and was written at once.
    const slow = record('ph_slow', '2026-11-23T08:30:00.000Z', '2026-11-23T08:30:09.000Z', 'approved');
    const quick = record('ph_quick', '2026-11-23T08:30:02.000Z', '2026-11-23T08:30:03.000Z', 'deferred');
    const report = replayDecisions(onePerHour, [quick, slow]);
    expect(report.replayed).toBe(2);
    expect(report.changes).toEqual({});
    expect(report.unchanged).toBe(2);
  });
});
