/**
 * A deferral names when the request is decided again. One that ended inside a freeze was not
 * decided again there but denied by the freeze (rule `freeze:<name>`), for good: a CI request
 * deferred to the morning's opening was refused when a morning freeze ended an hour later,
 * though the rule approves then and `maxDeferHours` had days left. A wait ends where the rule
 * can approve: past the freezes, at a time its windows are open, or it is denied at once when
 * that is past the request's expiry.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/parse.js';

type Freeze = { name: string; start: string; end: string };
const WEEKDAYS_9_TO_17 = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }];

const policy = (freezes: Freeze[], rule: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  parsePolicy({
    version: 1,
    timezone: 'Europe/Berlin',
    approvals: {
      rules: [
        {
          name: 'CI',
          when: { requesters: ['ci:*'] },
          decision: 'approve',
          windows: WEEKDAYS_9_TO_17,
          ...rule,
        },
      ],
      freezes,
      ...extra,
    },
    actions: { archive_config: { requesters: ['schedule:*'], maxPerDay: 5 } },
  });

const approve = (requestedAt: string): ActionRequest => ({
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_1',
  phaseId: 'ph_2',
  requestedBy: { source: 'ci', id: 'deploy.yml' },
  requestedAt,
});

const decideAt = (p: ReturnType<typeof policy>, request: ActionRequest, now: string) =>
  decide(p, { request, now: new Date(now), pause: { paused: false } });

// Mon 23 Nov 2026 17:30 in Berlin: after the window; it opens again Tue 09:00.
const MONDAY_EVENING = '2026-11-23T17:30:00+01:00';
const TUESDAY_MORNING_FREEZE = {
  name: 'db migration',
  start: '2026-11-24T06:00:00+01:00',
  end: '2026-11-24T12:00:00+01:00',
};

describe('a deferral never ends inside a freeze', () => {
  it('waits past a freeze over the next opening, to its end when the window is open then', () => {
    const decision = decideAt(policy([TUESDAY_MORNING_FREEZE]), approve(MONDAY_EVENING), MONDAY_EVENING);
    expect(decision.outcome).toBe('defer');
    expect(decision.rule).toBe('CI');
    expect(decision.deferUntil?.toISOString()).toBe('2026-11-24T11:00:00.000Z');
    expect(decision.reason).toContain('db migration');
    expect(decision.reason).toContain('deferred until Tue 24 Nov 12:00 CET');
  });

  it('waits for the next opening after a freeze that ends when the windows are closed', () => {
    const freeze = {
      name: 'all of Tuesday',
      start: '2026-11-24T00:00:00+01:00',
      end: '2026-11-24T20:00:00+01:00',
    };
    const decision = decideAt(policy([freeze]), approve(MONDAY_EVENING), MONDAY_EVENING);
    expect(decision.outcome).toBe('defer');
    expect(decision.deferUntil?.toISOString()).toBe('2026-11-25T08:00:00.000Z');
  });

  it('is denied at once when the end of the freeze is past the request expiry', () => {
    const freeze = { name: 'long', start: '2026-11-24T00:00:00+01:00', end: '2026-11-28T00:00:00+01:00' };
    const decision = decideAt(policy([freeze]), approve(MONDAY_EVENING), MONDAY_EVENING);
    expect(decision.outcome).toBe('deny');
    expect(decision.rule).toBe('maxDeferHours');
    expect(decision.reason).toContain('Mon 30 Nov 09:00 CET');
  });

  it('a full hour waits past a freeze that starts with the next hour', () => {
    const freeze = { name: 'lunch', start: '2026-11-23T11:00:00+01:00', end: '2026-11-23T12:30:00+01:00' };
    const decision = decideAt(
      policy([freeze], { maxPerHour: 2 }),
      approve('2026-11-23T10:00:00+01:00'),
      '2026-11-23T10:30:00+01:00',
    );
    expect(decision.outcome).toBe('approve');
    expect(decision.counter?.exceeded.outcome).toBe('defer');
    expect(decision.counter?.exceeded.deferUntil?.toISOString()).toBe('2026-11-23T11:30:00.000Z');
  });

  it('a full day waits past a freeze that starts at midnight', () => {
    const freeze = {
      name: 'tuesday morning',
      start: '2026-11-24T00:00:00+01:00',
      end: '2026-11-24T08:00:00+01:00',
    };
    const archive: ActionRequest = {
      version: 1,
      action: 'archive_config',
      configId: 'old_copy',
      reason: 'stale',
      requestedBy: { source: 'schedule', id: 'stale-configs' },
      requestedAt: '2026-11-23T10:00:00+01:00',
    };
    const decision = decideAt(policy([freeze]), archive, '2026-11-23T10:00:00+01:00');
    expect(decision.outcome).toBe('approve');
    expect(decision.counter?.exceeded.outcome).toBe('defer');
    expect(decision.counter?.exceeded.deferUntil?.toISOString()).toBe('2026-11-24T07:00:00.000Z');
  });

  it('a rule that denies outside its windows names an opening outside the freeze to ask again after', () => {
    const decision = decideAt(
      policy([TUESDAY_MORNING_FREEZE], { outsideWindows: 'deny' }),
      approve(MONDAY_EVENING),
      MONDAY_EVENING,
    );
    expect(decision.outcome).toBe('deny');
    expect(decision.reason).toContain('ask again after Tue 24 Nov 12:00 CET');
  });

  it('still defers to the opening when no freeze covers it', () => {
    const decision = decideAt(policy([]), approve(MONDAY_EVENING), MONDAY_EVENING);
    expect(decision.deferUntil?.toISOString()).toBe('2026-11-24T08:00:00.000Z');
    expect(decision.reason).toContain('deferred until Tue 24 Nov 09:00 CET');
  });
});
