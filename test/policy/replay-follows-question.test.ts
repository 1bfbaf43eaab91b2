/**
 * `policy replay` of a request the new policy asks a person about where the old one did not: the
 * deployed worker holds the question and looks at it again every hour (src/worker/hold.ts, the
 * look's time from src/policy/ask-channel.ts), deciding it afresh each time, and ends it when the
 * policy's answer changes: a freeze starting (denied), the request's expiry (`maxDeferHours`,
 * denied). The replay showed `approve → ask` and nothing after, where the worker, if nobody
 * answered, would have denied the request. It now follows the question through those looks as it
 * follows a deferral, to the end the worker would reach without a person's answer, or to the
 * replay's end time.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';

const HOUR = 3_600_000;
const REQUESTED = '2026-11-23T07:10:00.000Z'; // a Monday

/** CI asks a person, at any time; a freeze from 10:00 to noon when asked for. */
function asksAPerson(options: { freeze?: boolean } = {}) {
  return parsePolicy({
    version: 1,
    timezone: 'UTC',
    approvals: {
      rules: [{ name: 'CI asks a human', when: { requesters: ['ci:*'] }, decision: 'ask' }],
      ...(options.freeze
        ? { freezes: [{ name: 'launch', start: '2026-11-23T10:00:00Z', end: '2026-11-23T12:00:00Z' }] }
        : {}),
      maxDeferHours: 72,
    },
  });
}

/** CI approved 09:00–17:00 UTC on weekdays, deferred outside. */
const officeHours = parsePolicy({
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

/** The old worker's record of `deploy-1` (requested at REQUESTED) at `at`. */
function recordAt(at: string, result: 'approved' | 'deferred'): RecordedDecision {
  return {
    requestId: 'deploy-1',
    at,
    action: 'approve_phase',
    target: 'trigger trg_1 phase ph_1',
    requester: 'ci:deploy.yml',
    rule: 'CI',
    result,
    inputs: {
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: REQUESTED,
        requestId: 'deploy-1',
      } as NonNullable<RecordedDecision['inputs']>['request'],
      now: at,
      pause: { paused: false },
      channel: true,
    },
  };
}

describe('policy replay follows a question nobody answers', () => {
  it('shows the denial the worker makes at the expiry, after its hourly looks', () => {
    const report = replayDecisions(asksAPerson(), [recordAt(REQUESTED, 'approved')]);
    expect(report.changes).toEqual({ 'approve → ask → deny (maxDeferHours)': 1 });
    // Looked at every hour (72 looks still asking, the last at the expiry itself), then once just
    // past the expiry: denied.
    const end = 72 * HOUR + 1000;
    expect(report.delays).toEqual({
      'approve → ask → deny (maxDeferHours)': { shortestMs: end, longestMs: end },
    });
    expect(report.rows[0]).toMatchObject({
      old: { outcome: 'approve' },
      new: { outcome: 'ask', rule: 'CI asks a human' },
      followed: {
        outcome: 'deny',
        rule: 'maxDeferHours',
        at: '2026-11-26T07:10:01.000Z',
        afterMs: end,
        looks: 73,
      },
    });
    expect(report.rows[0]?.followed?.notFollowed).toBeUndefined();
  });

  it('shows the denial at the first hourly look inside a freeze', () => {
    const report = replayDecisions(asksAPerson({ freeze: true }), [recordAt(REQUESTED, 'approved')]);
    expect(report.changes).toEqual({ 'approve → ask → deny (freeze:launch)': 1 });
    expect(report.rows[0]?.followed).toMatchObject({
      outcome: 'deny',
      rule: 'freeze:launch',
      at: '2026-11-23T10:10:00.000Z',
      afterMs: 3 * HOUR,
      looks: 3,
    });
  });

  it("counts the old trail's later records of the asked request as looks until the followed question ends", () => {
    // The old worker deferred at 07:10 and approved at 09:00; the new one asks at 07:10 and, with
    // nobody answering, denies at the expiry: both later records are the old worker's looks.
    const report = replayDecisions(asksAPerson(), [
      { ...recordAt(REQUESTED, 'deferred') },
      recordAt('2026-11-23T08:10:00.000Z', 'deferred'),
      recordAt('2026-11-23T09:00:00.000Z', 'approved'),
    ]);
    expect(report.changes).toEqual({ 'defer → ask → deny (maxDeferHours)': 1 });
    expect(report).toMatchObject({ replayed: 1, laterLooks: 2, alreadyEnded: 0 });
  });

  it("stops following a question at the replay's end time, still asked, and says so", () => {
    const report = replayDecisions(asksAPerson(), [recordAt(REQUESTED, 'approved')], {
      until: new Date('2026-11-23T09:30:00.000Z'),
    });
    expect(report.changes).toEqual({ 'approve → ask → ask (not followed further)': 1 });
    expect(report.rows[0]?.followed).toMatchObject({
      outcome: 'ask',
      at: '2026-11-23T09:10:00.000Z',
      looks: 2,
    });
    expect(report.rows[0]?.followed?.notFollowed).toBe('the replay ends first');
  });

  it("stops following a deferral at the replay's end time too", () => {
    const report = replayDecisions(officeHours, [recordAt(REQUESTED, 'approved')], {
      until: new Date('2026-11-23T08:00:00.000Z'),
    });
    expect(report.changes).toEqual({ 'approve → defer → defer (not followed further)': 1 });
    expect(report.rows[0]?.followed?.notFollowed).toBe('the replay ends first');
  });
});
