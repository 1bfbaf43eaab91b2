/**
 * What `policy replay` does not know, as README's "What replay cannot tell you" says. It used to
 * pin that a deferral was not followed (the request after it showed an approval the worker would
 * have deferred); replay now follows it (test/policy/replay-follows-deferral.test.ts). What stays:
 * a followed wait is decided again with the pause flag and vetoes as they were recorded at its
 * first decision, since later changes of them are not in the trail.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';

/** The new policy: CI approved at any time; the old one had a freeze that denied it. */
const noFreeze = parsePolicy({
  version: 1,
  timezone: 'UTC',
  approvals: {
    maxDeferHours: 2,
    rules: [{ name: 'CI', when: { requesters: ['ci:*'] }, decision: 'approve' }],
  },
});

const at = '2026-11-23T10:00:00.000Z';
/** Denied by a freeze while automation was paused (the freeze comes first). */
const deniedWhilePaused: RecordedDecision = {
  requestId: 'frozen',
  at,
  action: 'approve_phase',
  target: 'trigger trg_1 phase ph_1',
  requester: 'ci:deploy.yml',
  rule: 'freeze:release',
  result: 'denied',
  inputs: {
    request: {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_1',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'deploy.yml' },
      requestedAt: at,
      requestId: 'frozen',
    } as NonNullable<RecordedDecision['inputs']>['request'],
    now: at,
    pause: { paused: true, by: 'U1' },
    channel: true,
  },
};

describe('policy replay follows a deferral with the state as recorded', () => {
  it('keeps a recorded pause for the whole wait: a resume in between is not known', () => {
    // Without the freeze the pause defers it 15 minutes at a time; the recorded pause never
    // lifts, so the wait ends at maxDeferHours (2 h) denied, whatever happened to the pause.
    const report = replayDecisions(noFreeze, [deniedWhilePaused]);
    expect(report.changes).toEqual({ 'deny → defer → deny (maxDeferHours)': 1 });
    expect(report.rows[0]).toMatchObject({
      new: { outcome: 'defer', rule: 'pause' },
      followed: { outcome: 'deny', rule: 'maxDeferHours', afterMs: 2 * 3_600_000 + 15 * 60_000 },
    });
  });
});
