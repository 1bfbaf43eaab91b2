/**
 * A rule with `outsideWindows: "deny"` never carries a request across closed hours to a later
 * opening: past its hourly cap, a request whose next hour finds the windows closed is denied
 * (README: "when the rule's windows are closed by then, get what the rule gives outside them").
 * A freeze in force at the hour's end that lasts past the windows' close moved the wait to the
 * next morning's opening instead, where the worker approves it: a request the rule denies
 * without the freeze was approved the next day because of a freeze.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/parse.js';

const policy = (freezes: Array<{ name: string; start: string; end: string }>) =>
  parsePolicy({
    version: 1,
    timezone: 'Europe/Berlin',
    approvals: {
      rules: [
        {
          name: 'office',
          when: { requesters: ['ci:*'] },
          decision: 'approve',
          windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
          outsideWindows: 'deny',
          maxPerHour: 1,
        },
      ],
      freezes,
    },
  });

const request = (requestedAt: string): ActionRequest => ({
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_1',
  phaseId: 'ph_2',
  requestedBy: { source: 'ci', id: 'deploy.yml' },
  requestedAt,
});

// Tue 24 Nov 2026, 14:30 in Berlin: inside the window, this hour's one approval taken.
const TUESDAY_AFTERNOON = '2026-11-24T14:30:00+01:00';
const overTheCap = (p: ReturnType<typeof policy>) =>
  decide(p, {
    request: request(TUESDAY_AFTERNOON),
    now: new Date(TUESDAY_AFTERNOON),
    pause: { paused: false },
  }).counter?.exceeded;

describe('a rule that denies outside its windows, over its hourly cap', () => {
  it('is denied when a freeze at the next hour lasts until the windows are closed', () => {
    const freeze = {
      name: 'deploy freeze',
      start: '2026-11-24T15:00:00+01:00',
      end: '2026-11-24T18:00:00+01:00',
    };
    const exceeded = overTheCap(policy([freeze]));
    // Not deferred to Wed 09:00, where the worker would approve it.
    expect(exceeded?.outcome).toBe('deny');
    expect(exceeded?.deferUntil).toBeUndefined();
    expect(exceeded?.rule).toBe('office');
    expect(exceeded?.reason).toContain('deploy freeze');
    expect(exceeded?.reason).toContain('ask again after Wed 25 Nov 09:00 CET');
  });

  it('is denied when the freeze lasts over the night into the next opening', () => {
    const freeze = {
      name: 'overnight',
      start: '2026-11-24T15:00:00+01:00',
      end: '2026-11-25T10:00:00+01:00',
    };
    const exceeded = overTheCap(policy([freeze]));
    expect(exceeded?.outcome).toBe('deny');
    expect(exceeded?.reason).toContain('ask again after Wed 25 Nov 10:00 CET');
  });

  it('is denied when the freeze ends as the windows close', () => {
    const freeze = { name: 'late', start: '2026-11-24T15:00:00+01:00', end: '2026-11-24T17:00:00+01:00' };
    expect(overTheCap(policy([freeze]))?.outcome).toBe('deny');
  });

  it('still waits past a freeze that ends while the windows are open', () => {
    const freeze = {
      name: 'short freeze',
      start: '2026-11-24T15:00:00+01:00',
      end: '2026-11-24T16:00:00+01:00',
    };
    const exceeded = overTheCap(policy([freeze]));
    expect(exceeded?.outcome).toBe('defer');
    expect(exceeded?.deferUntil?.toISOString()).toBe('2026-11-24T15:00:00.000Z');
  });
});
