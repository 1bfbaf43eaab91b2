/**
 * `policy replay` follows a deferral the new policy makes where the old one ended the request
 * (approved, denied, asked): the worker would hold it and decide it again at the decision's
 * `deferUntil`, with the pause and vetoes as recorded, until it is approved, denied, asked or
 * past `maxDeferHours`. A later approval takes its counter unit then, in time order with the
 * other replayed approvals, and the report tells the end of the chain and how long it took.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';
import { delayWords, MAX_LOOKS, nextLookAt } from '../../src/policy/replay-follow.js';
import { ciApprovalRecord } from './fixtures.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** The new policy: CI approved 09:00–17:00 UTC on weekdays, deferred outside, `maxPerHour` as given. */
function officeHours(options: { maxPerHour?: number; maxDeferHours?: number } = {}) {
  return parsePolicy({
    version: 1,
    timezone: 'UTC',
    approvals: {
      ...(options.maxDeferHours === undefined ? {} : { maxDeferHours: options.maxDeferHours }),
      rules: [
        {
          name: 'CI',
          when: { requesters: ['ci:*'] },
          decision: 'approve',
          windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
          outsideWindows: 'defer',
          ...(options.maxPerHour === undefined ? {} : { maxPerHour: options.maxPerHour }),
        },
      ],
    },
  });
}

/** The old worker approved `requestId` at once at `at` (requested then too). */
function approvedAt(requestId: string, at: string): RecordedDecision {
  const target = `trigger trg_1 phase ${requestId}`;
  return ciApprovalRecord({ requestId, target, rule: 'CI', result: 'approved' }, at, { channel: true });
}

const row = (report: ReturnType<typeof replayDecisions>, id: string) =>
  report.rows.find((r) => r.requestId === id);

describe('policy replay follows a deferral', () => {
  it('shows a new approval window turning an approval into one two hours later', () => {
    // Monday 2026-11-23 07:00: approved at once before; now it waits for the 09:00 window.
    const report = replayDecisions(officeHours(), [approvedAt('early', '2026-11-23T07:00:00.000Z')]);
    expect(report.changes).toEqual({ 'approve → defer → approve': 1 });
    expect(report.delays).toEqual({
      'approve → defer → approve': { shortestMs: 2 * HOUR, longestMs: 2 * HOUR },
    });
    expect(row(report, 'early')).toMatchObject({
      old: { outcome: 'approve', rule: 'CI' },
      new: { outcome: 'defer', rule: 'CI' },
      followed: {
        outcome: 'approve',
        rule: 'CI',
        at: '2026-11-23T09:00:00.000Z',
        afterMs: 2 * HOUR,
        looks: 1,
      },
    });
    expect(report).toMatchObject({ replayed: 1, unchanged: 0 });
  });

  it('ends a deferral past maxDeferHours denied, as the worker denies an expired wait', () => {
    // maxDeferHours 1, one approval an hour: both wait for 09:00; "first" takes the 09:00 unit,
    // "second" would wait for 10:00, past its expiry (09:55), so it is denied at 09:00.
    const report = replayDecisions(officeHours({ maxPerHour: 1, maxDeferHours: 1 }), [
      approvedAt('first', '2026-11-23T08:50:00.000Z'),
      approvedAt('second', '2026-11-23T08:55:00.000Z'),
    ]);
    expect(report.changes).toEqual({
      'approve → defer → approve': 1,
      'approve → defer → deny (maxDeferHours)': 1,
    });
    expect(row(report, 'first')).toMatchObject({ followed: { outcome: 'approve', afterMs: 10 * MINUTE } });
    expect(row(report, 'second')).toMatchObject({
      new: { outcome: 'defer' },
      followed: { outcome: 'deny', rule: 'maxDeferHours', afterMs: 5 * MINUTE },
    });
  });

  it('gives a followed approval its maxPerHour unit, which then defers a later request', () => {
    // Monday: the old policy approved both at once. The new one defers 08:50 to 09:00, where it is
    // approved and fills the 09:00 hour; the 09:10 request, approved before, now waits for 10:00.
    const report = replayDecisions(officeHours({ maxPerHour: 1 }), [
      approvedAt('early', '2026-11-23T08:50:00.000Z'),
      approvedAt('later', '2026-11-23T09:10:00.000Z'),
    ]);
    expect(report.changes).toEqual({ 'approve → defer → approve': 2 });
    expect(report.unchanged).toBe(0);
    expect(row(report, 'early')).toMatchObject({
      followed: { outcome: 'approve', at: '2026-11-23T09:00:00.000Z', afterMs: 10 * MINUTE },
    });
    expect(row(report, 'later')).toMatchObject({
      new: { outcome: 'defer', rule: 'CI' },
      followed: { outcome: 'approve', at: '2026-11-23T10:00:00.000Z', afterMs: 50 * MINUTE },
    });
    expect(report.delays['approve → defer → approve']).toEqual({
      shortestMs: 10 * MINUTE,
      longestMs: 50 * MINUTE,
    });
  });

  it('takes a followed approval’s unit at its own time, after requests decided before it', () => {
    // "early" waits from 08:50 to 09:00; "prompt", decided at 09:00:30 (after it), finds the
    // hour taken. In decision order alone "prompt" would have seen an empty hour.
    const report = replayDecisions(officeHours({ maxPerHour: 1 }), [
      approvedAt('prompt', '2026-11-23T09:00:30.000Z'),
      approvedAt('early', '2026-11-23T08:50:00.000Z'),
    ]);
    expect(row(report, 'early')).toMatchObject({
      followed: { outcome: 'approve', at: '2026-11-23T09:00:00.000Z' },
    });
    expect(row(report, 'prompt')).toMatchObject({
      new: { outcome: 'defer' },
      followed: { outcome: 'approve', at: '2026-11-23T10:00:00.000Z' },
    });
  });

  it('does not follow a deferral both policies made: the trail’s later records are its next looks', () => {
    const deferred = { ...approvedAt('night', '2026-11-23T20:00:00.000Z'), result: 'deferred' };
    const report = replayDecisions(officeHours(), [deferred]);
    expect(report).toMatchObject({ replayed: 1, unchanged: 1, changes: {}, rows: [] });
  });
});

describe('the bound on following a wait', () => {
  const at = Date.parse('2026-11-23T09:00:00.000Z');
  const deferral = (until: number) => ({
    outcome: 'defer' as const,
    rule: 'CI',
    reason: 'waits',
    dryRun: false,
    deferUntil: new Date(until),
  });

  it('follows a deferral only to a later instant', () => {
    expect(nextLookAt(deferral(at + MINUTE), at)).toBe(at + MINUTE);
    expect(nextLookAt(deferral(at), at)).toBeUndefined();
    expect(nextLookAt(deferral(at - MINUTE), at)).toBeUndefined();
    expect(nextLookAt({ ...deferral(at), deferUntil: new Date(Number.NaN) }, at)).toBeUndefined();
  });

  it('covers the longest wait a policy allows at its shortest step', () => {
    // maxDeferHours is at most 14 days; a pause or the sweeper's reading waits 15 minutes a time.
    expect(MAX_LOOKS).toBeGreaterThan((14 * 24 * HOUR) / (15 * MINUTE));
  });

  it('tells a wait in words', () => {
    expect([30_000, 10 * MINUTE, 2 * HOUR, 2 * HOUR + 5 * MINUTE, 74 * HOUR].map(delayWords)).toEqual([
      '30s',
      '10m',
      '2h',
      '2h 5m',
      '3d 2h',
    ]);
  });
});
