/**
 * An asked request leaves one `asked` record per hourly look while its question waits. Replayed
 * under a policy that defers it to a window, the worker would defer it once and approve it at
 * the opening (one changed request: ask → defer → approve); `policy replay` decides it again at
 * each of the old policy's hourly looks instead, reporting the one request as several changes
 * (ask → defer twice, then ask → approve) and approving it at a look the new worker never makes.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../src/policy/replay.js';

const policy = parsePolicy({
  version: 1,
  timezone: 'UTC',
  approvals: {
    rules: [
      {
        name: 'CI',
        when: { requesters: ['ci:*'] },
        decision: 'approve',
        windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
        outsideWindows: 'defer',
      },
    ],
  },
});

const REQUESTED = '2026-11-23T07:10:00Z'; // Monday, before the window

/** The old worker's hourly look at the asked request `nightly-1` (its question still open). */
function askedAt(at: string): RecordedDecision {
  return {
    requestId: 'nightly-1',
    at,
    action: 'approve_phase',
    target: 'trigger trg_1 phase ph_1',
    requester: 'ci:nightly',
    rule: 'nightly asks a human',
    result: 'asked',
    inputs: {
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'nightly' },
        requestedAt: REQUESTED,
        requestId: 'nightly-1',
      } as NonNullable<RecordedDecision['inputs']>['request'],
      now: at,
      pause: { paused: false },
      channel: true,
    },
  };
}

describe('policy replay of a question looked at every hour', () => {
  it('reports the one request once, approved when the window opens, as the worker would', () => {
    const report = replayDecisions(policy, [
      askedAt(REQUESTED),
      askedAt('2026-11-23T08:10:00Z'),
      askedAt('2026-11-23T09:10:00Z'),
    ]);
    expect(report.changes).toEqual({ 'ask → defer → approve': 1 });
    expect(report.rows.map((r) => r.requestId)).toEqual(['nightly-1']);
    expect(report.rows[0]?.followed?.at).toBe('2026-11-23T09:00:00.000Z');
  });
});
