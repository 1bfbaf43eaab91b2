/**
 * The chaos run's verdict (src/local/chaos.ts): besides duplicates and losses, it fails on an
 * effect applied without a request recorded as done, and on a run that injected nothing.
 */
import { describe, expect, it } from 'vitest';
import { type ChaosReport, chaosFailures } from '../../src/local/chaos.js';

const passing: ChaosReport = {
  sent: 1000,
  drained: true,
  durationMs: 50_000,
  terminal: { approved: 32 },
  duplicatedEffects: [],
  lost: [],
  crashes: { midBatch: 5, early: 4 },
  invocations: 153,
  recordsDelivered: 1126,
  faultsInjected: { error: 80, hang: 17 },
  mutationCalls: 417,
  effects: 64,
  effectsWithoutOutcome: [],
};

describe('the chaos verdict', () => {
  it('passes a run with faults and crashes, nothing duplicated, lost or unowned', () => {
    expect(chaosFailures(passing)).toEqual([]);
  });

  it('names each failure', () => {
    expect(
      chaosFailures({
        ...passing,
        drained: false,
        duplicatedEffects: [{ effectKey: 'approve#trg_1#ph_1', successfulCalls: 2 }],
        lost: ['chaos-00001'],
        effectsWithoutOutcome: ['approve#trg_2#ph_1'],
        faultsInjected: {},
        crashes: { midBatch: 0, early: 0 },
      }),
    ).toEqual([
      'the queue did not drain in time',
      '1 duplicated effect(s)',
      '1 lost request(s)',
      '1 effect(s) applied without a request recorded as done',
      'no fault was injected at the sandbox',
      'no worker crash was injected',
    ]);
  });
});
