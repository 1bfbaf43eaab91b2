/**
 * `policy test` (and the synth gate that runs the same cases) decides a dry run as the worker and
 * `policy replay` do: it takes no counter unit. It used to apply an exhausted counter's deferral to
 * a dry run, so the shipped case expected a deferral the worker never gives.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decideCase, runCases } from '../../src/policy/cases.js';
import { parsePolicyText } from '../../src/policy/parse.js';
import { replayDecisions } from '../../src/policy/replay.js';
import { testPolicy } from './fixtures.js';

// Monday 23 Nov 2026 09:30 Berlin: inside "CI in office hours" (maxPerHour 30).
const AT = '2026-11-23T09:30:00+01:00';

describe('policy test: a dry run takes no counter unit, as in the worker', () => {
  it('approves a dry-run approval even when the hour counter is used up (the worker answers would-mutate)', () => {
    const testCase = {
      name: 'dry run at the limit',
      at: AT,
      request: {
        action: 'approve_phase' as const,
        target: 'trg_1/ph_2',
        requester: 'ci:deploy.yml',
        dryRun: true,
      },
      state: { counters: { 'CI in office hours': 30 } },
      expect: { outcome: 'approve' as const },
    };
    const decision = decideCase(testPolicy, testCase);
    // The worker (src/worker/process-record.ts apply): a dry-run approve ends `would-mutate` before any
    // counter is consumed; replay (src/policy/replay.ts) skips the counter for dry runs too.
    const replay = replayDecisions(testPolicy, [
      ...Array.from({ length: 30 }, (_, i) => ({
        requestId: `real-${i}`,
        at: `2026-11-23T08:0${Math.floor(i / 10)}:${String(10 + (i % 10)).padStart(2, '0')}.000Z`,
        action: 'approve_phase',
        target: 'trg_1/ph_2',
        requester: 'ci:deploy.yml',
        rule: 'CI in office hours',
        result: 'approved',
        inputs: {
          request: {
            version: 1,
            action: 'approve_phase',
            triggerId: 'trg_1',
            phaseId: `ph_${i}`,
            requestedBy: { source: 'ci', id: 'deploy.yml' },
            requestedAt: '2026-11-23T08:00:00.000Z',
            requestId: `real-${i}`,
          },
          now: `2026-11-23T08:0${Math.floor(i / 10)}:${String(10 + (i % 10)).padStart(2, '0')}.000Z`,
          pause: { paused: false },
        },
      })),
      {
        requestId: 'dry',
        at: '2026-11-23T08:30:00.000Z',
        action: 'approve_phase',
        target: 'trg_1/ph_99',
        requester: 'ci:deploy.yml',
        rule: 'CI in office hours',
        result: 'would-mutate',
        dryRun: true,
        inputs: {
          request: {
            version: 1,
            action: 'approve_phase',
            triggerId: 'trg_1',
            phaseId: 'ph_99',
            requestedBy: { source: 'ci', id: 'deploy.yml' },
            requestedAt: '2026-11-23T08:30:00.000Z',
            requestId: 'dry',
            dryRun: true,
          },
          now: '2026-11-23T08:30:00.000Z',
          pause: { paused: false },
        },
      },
    ] as never);
    // replay: the dry run is still approved with 30 real approvals before it (of other phases: a dry
    // run of a change another request made is told "already done", in the worker and in replay)
    expect(replay.unchanged).toBe(31);
    expect(decision.outcome).toBe('approve');
    expect(runCases(testPolicy, { cases: [testCase] })[0]?.pass).toBe(true);
  });

  it('the shipped sweeper archives are dry runs: the daily cap takes nothing, as in the worker', () => {
    const policy = parsePolicyText(
      readFileSync(new URL('../../policy.json', import.meta.url), 'utf8'),
      'policy.json',
    );
    const cases = JSON.parse(readFileSync(new URL('../../policy.cases.json', import.meta.url), 'utf8'));
    const testCase = cases.cases.find((c: { name: string }) =>
      c.name.startsWith('sweeper archives are dry runs'),
    );
    const decision = decideCase(policy, testCase);
    // staleConfigs.dryRun is true in policy.json: the worker ends this request `would-mutate` and takes no unit.
    expect(decision.dryRun).toBe(true);
    expect(decision.outcome).toBe('approve');
  });
});
