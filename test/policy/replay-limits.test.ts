/**
 * What `policy replay` does not simulate, as README's "What replay cannot tell you" says: a
 * request the new policy defers goes no further, so the counter unit its later approval would
 * take is not taken, and a request after it shows an approval the worker would have deferred.
 * Pinned here so that the README stays true (and is updated if the replay learns to follow deferrals).
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';

/** The new policy: CI approved 09:00–17:00 UTC, deferred outside, one approval an hour. */
const inHoursOnePerHour = parsePolicy({
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
        maxPerHour: 1,
      },
    ],
  },
});

function approvedAt(requestId: string, at: string): RecordedDecision {
  return {
    requestId,
    at,
    action: 'approve_phase',
    target: `trigger trg_1 phase ${requestId}`,
    requester: 'ci:deploy.yml',
    rule: 'CI',
    result: 'approved',
    inputs: {
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: requestId,
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: at,
        requestId,
      } as NonNullable<RecordedDecision['inputs']>['request'],
      now: at,
      pause: { paused: false },
      channel: true,
    },
  };
}

describe('policy replay does not follow a deferral', () => {
  it('leaves the unit a deferred request would take when released, so a later approval shows unchanged', () => {
    // Monday 2026-11-23: the old policy approved both at once. The new one defers the 08:50
    // request to 09:00, where the worker would approve it and fill the 09:00 hour; the 09:10
    // request would then wait for 10:00. The replay sees only the two records it has.
    const report = replayDecisions(inHoursOnePerHour, [
      approvedAt('early', '2026-11-23T08:50:00.000Z'),
      approvedAt('later', '2026-11-23T09:10:00.000Z'),
    ]);
    expect(report.changes).toEqual({ 'approve → defer': 1 });
    expect(report.rows.map((r) => r.requestId)).toEqual(['early']);
    expect(report.unchanged).toBe(1);
  });
});
