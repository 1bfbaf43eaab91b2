/**
 * `policy replay` rebuilds the new policy's `maxPerHour` counters from the approvals it replays.
 * The worker never decides a request whose change is already made (src/worker/process-record.ts:
 * a completed effect is told as "already done" before the policy is asked, and no counter unit is
 * taken). A CI retry under a new request id for the same trigger and phase, approved by the old
 * policy after it had denied the first try, was replayed as a second approval taking a second unit,
 * so a third, unrelated approval in that hour was replayed as held over the limit ("approve →
 * defer → approve") where the worker under the new policy approves it at once.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedDecision } from '../../src/policy/replay.js';
import { replayDecisions } from '../../src/policy/replay.js';
import { policyWith, testPolicyInput } from './fixtures.js';

/** The test policy (Berlin) with "CI in office hours" limited to two approvals an hour. */
const twoPerHour = policyWith({
  approvals: {
    ...testPolicyInput.approvals,
    rules: testPolicyInput.approvals.rules.map((rule) =>
      rule.name === 'CI in office hours' ? { ...rule, maxPerHour: 2 } : rule,
    ),
  },
});

function ciRecord(
  requestId: string,
  triggerId: string,
  decidedAt: string,
  result: string,
  rule: string,
): RecordedDecision {
  return {
    requestId,
    at: decidedAt,
    action: 'approve_phase',
    target: `trigger ${triggerId} phase ph_2`,
    requester: 'ci:deploy.yml',
    rule,
    result,
    dryRun: false,
    inputs: {
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId,
        phaseId: 'ph_2',
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: decidedAt,
        requestId,
      } as NonNullable<RecordedDecision['inputs']>['request'],
      now: decidedAt,
      pause: { paused: false },
      channel: true,
    },
  };
}

describe('policy replay and a second request for a change already made', () => {
  // Monday 23 Nov 2026, 09:30, 09:35 and 09:40 in Berlin (office hours).
  const firstTry = ciRecord('deploy-1', 'trg_1', '2026-11-23T08:30:00.000Z', 'denied', 'otherwise');
  const retry = ciRecord(
    'deploy-1-retry',
    'trg_1',
    '2026-11-23T08:35:00.000Z',
    'approved',
    'CI in office hours',
  );
  const other = ciRecord('deploy-2', 'trg_2', '2026-11-23T08:40:00.000Z', 'approved', 'CI in office hours');

  it('takes no unit for the retry the worker would tell as already done', () => {
    const report = replayDecisions(twoPerHour, [firstTry, retry, other]);
    // The new policy approves the first try; the retry finds the change made; trg_2 is the hour's second approval.
    expect(report.changes).toEqual({ 'deny → approve': 1 });
    const otherRow = report.rows.find((row) => row.requestId === 'deploy-2');
    expect(otherRow).toBeUndefined();
    expect(report).toMatchObject({ replayed: 2, alreadyDone: 1 });
  });
});
