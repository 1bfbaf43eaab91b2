/**
 * `state.counters` in a policy test case names a limit of the policy: an approval rule with
 * maxPerHour or an action with maxPerDay. A misspelt name used to count zero without a word, so a
 * case meant to show the limit approving nothing passed by approving.
 */
import { describe, expect, it } from 'vitest';
import { runCases } from '../../src/policy/cases.js';
import { testPolicy } from './fixtures.js';

// Monday 23 Nov 2026 09:30 Berlin: inside "CI in office hours" (maxPerHour 30).
const AT = '2026-11-23T09:30:00+01:00';
const request = { action: 'approve_phase' as const, target: 'trg_1/ph_2', requester: 'ci:deploy.yml' };

describe('policy test: state.counters', () => {
  it('fails a case whose counter name is no limit of the policy, naming it and the limits there are', () => {
    const [result] = runCases(testPolicy, {
      cases: [
        {
          name: 'misspelt counter',
          at: AT,
          request,
          state: { counters: { 'CI in ofice hours': 30 } },
          expect: { outcome: 'approve' },
        },
      ],
    });
    expect(result?.pass).toBe(false);
    expect(result?.got).toBe('error');
    expect(result?.problem).toContain('"CI in ofice hours" is no limit of this policy');
    expect(result?.problem).toContain('"CI in office hours"');
  });

  it('counts by rule name and by action name', () => {
    const results = runCases(testPolicy, {
      cases: [
        {
          name: 'hour used up',
          at: AT,
          request,
          state: { counters: { 'CI in office hours': 30 } },
          expect: { outcome: 'defer' },
        },
        {
          name: 'hour with room',
          at: AT,
          request,
          state: { counters: { 'CI in office hours': 29 } },
          expect: { outcome: 'approve' },
        },
      ],
    });
    expect(results.map((r) => [r.name, r.pass, r.problem])).toEqual([
      ['hour used up', true, undefined],
      ['hour with room', true, undefined],
    ]);
  });
});
