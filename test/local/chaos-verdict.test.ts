/**
 * The chaos run's verdict (src/local/chaos.ts): besides duplicates and losses, it fails on an
 * effect applied without a request recorded as done, on a request recorded as done whose change
 * was never applied, on a run that injected nothing, and on what
 * people were told (the tell ledger: test/local/tell-ledger.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { type ChaosReport, chaosFailures } from '../../src/local/chaos.js';
import { tellLedger } from '../../src/local/tell-ledger.js';

const noFacts = { finals: new Map(), withReplyUrl: new Set<string>(), channelOwed: new Set<string>() };

const passing: ChaosReport = {
  sent: 1000,
  drained: true,
  durationMs: 50_000,
  terminal: { approved: 32 },
  duplicatedEffects: [],
  lost: [],
  crashes: { midBatch: 5, early: 4, afterPut: 3, timedOut: 0 },
  invocations: 153,
  recordsDelivered: 1126,
  faultsInjected: { error: 80, hang: 17 },
  mutationCalls: 417,
  effects: 64,
  effectsWithoutOutcome: [],
  doneWithoutEffect: [],
  doneChecked: 30,
  telling: tellLedger([], { ...noFacts, deliveries: new Map(), crashed: new Set() }, true),
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
        doneWithoutEffect: ['chaos-00002'],
        faultsInjected: {},
        crashes: { midBatch: 0, early: 0, afterPut: 0, timedOut: 0 },
      }),
    ).toEqual([
      'the queue did not drain in time',
      '1 duplicated effect(s)',
      '1 lost request(s)',
      '1 effect(s) applied without a request recorded as done',
      '1 request(s) recorded as done whose change the sandbox never applied',
      'no fault was injected at the sandbox',
      'no worker crash was injected',
    ]);
  });

  it('fails on what people were told: an end told two ways', () => {
    const channel = (text: string) => ({
      seq: 1,
      path: '/channel',
      body: { text, blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'request `c-1`' }] }] },
    });
    const telling = tellLedger(
      [channel(':white_check_mark: Done: approve'), channel(':no_entry: Denied: approve')],
      { ...noFacts, finals: new Map([['c-1', 'approved']]), deliveries: new Map(), crashed: new Set() },
      true,
    );
    expect(chaosFailures({ ...passing, telling })).toEqual([
      '1 request(s) told two different ends',
      '1 telling(s) of an end other than the recorded final',
    ]);
  });
});
