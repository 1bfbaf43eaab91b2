/**
 * A held request leaves one record per look of the old worker: an asked one an `asked` record
 * every hour while its question waits. Replayed under a policy that defers it to a window, the
 * worker would defer it once and approve it at the opening (one changed request: ask → defer →
 * approve); `policy replay` decided it again at each of the old hourly looks, reporting the one
 * request as several changes (ask → defer twice, then ask → approve at a look the new worker
 * never makes). It now decides a request once where the new policy defers or asks and the old
 * one did not, follows a deferral from there, and counts the old trail's later looks apart.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';
import type { PolicyInput } from '../../src/policy/schema.js';

const policyWith = (approvals: PolicyInput['approvals']) =>
  parsePolicy({ version: 1, timezone: 'UTC', approvals });

/** CI approved in office hours, deferred outside them. */
const defersToWindow = policyWith({
  rules: [
    {
      name: 'CI',
      when: { requesters: ['ci:*'] },
      decision: 'approve',
      windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
      outsideWindows: 'defer',
    },
  ],
});

/** CI asks a person, at any time. */
const asksAPerson = policyWith({
  rules: [{ name: 'nightly asks a human', when: { requesters: ['ci:*'] }, decision: 'ask' }],
});

const REQUESTED = '2026-11-23T07:10:00Z'; // Monday, before the window

/** The old worker's decision of `nightly-1` at one of its looks. */
function lookAt(at: string, result: 'asked' | 'deferred', rule: string): RecordedDecision {
  return {
    requestId: 'nightly-1',
    at,
    action: 'approve_phase',
    target: 'trigger trg_1 phase ph_1',
    requester: 'ci:nightly',
    rule,
    result,
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

describe('policy replay of a request the old worker looked at several times', () => {
  it('reports a question looked at every hour once, approved when the window opens, as the worker would', () => {
    const asked = (at: string) => lookAt(at, 'asked', 'nightly asks a human');
    const report = replayDecisions(defersToWindow, [
      asked(REQUESTED),
      asked('2026-11-23T08:10:00Z'),
      asked('2026-11-23T09:10:00Z'),
    ]);
    expect(report.changes).toEqual({ 'ask → defer → approve': 1 });
    expect(report.rows.map((r) => r.requestId)).toEqual(['nightly-1']);
    expect(report.rows[0]?.followed?.at).toBe('2026-11-23T09:00:00.000Z');
    // 08:10 is a look of the old worker's; 09:10 would not exist (approved at 09:00).
    expect(report).toMatchObject({ replayed: 1, laterLooks: 1, alreadyEnded: 1 });
  });

  it('reports a deferral the new policy asks about instead once, not as a question at each old look', () => {
    // The old policy deferred at 07:10 to 09:00 and approved then; the new one asks at 07:10, and
    // what a person answers is not known: the change is one question, followed through the
    // worker's hourly looks to its expiry (replay-follows-question.test.ts), and the 09:00 approval is a look.
    const report = replayDecisions(asksAPerson, [
      lookAt(REQUESTED, 'deferred', 'CI'),
      lookAt('2026-11-23T08:10:00Z', 'deferred', 'CI'),
      { ...lookAt('2026-11-23T09:00:00Z', 'deferred', 'CI'), result: 'approved' },
    ]);
    expect(report.changes).toEqual({ 'defer → ask → deny (maxDeferHours)': 1 });
    expect(report.rows.map((r) => `${r.at} ${r.new.outcome}`)).toEqual([`${REQUESTED} ask`]);
    expect(report).toMatchObject({ replayed: 1, laterLooks: 2 });
  });
});
