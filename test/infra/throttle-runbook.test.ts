/**
 * The ConsoleApiThrottled alarm's advice works: the worker's containers share one budget of the
 * key's limits through the state table (src/wiring/mutation-budget.ts), so lowering
 * workerMaxConcurrency would not change the mutation rate; the alarm does not prescribe it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(() => s?.cleanup());

describe('ConsoleApiThrottled', () => {
  it('does not prescribe lowering workerMaxConcurrency, which cannot change the shared mutation budget', () => {
    const [, alarm] = Object.entries(s.template.findResources('AWS::CloudWatch::Alarm')).find(([id]) =>
      id.startsWith('ConsoleApiThrottled'),
    ) as [string, { Properties: { AlarmDescription: string } }];
    // The stack gives every container the key's whole limits: the budget is not split by concurrency.
    const worker = s.json.Resources[s.logicalId('Worker/Function')]!.Properties as {
      Environment: { Variables: Record<string, unknown> };
    };
    expect(worker.Environment.Variables.MUTATION_LIMIT_10S).toBe('100');
    expect(alarm.Properties.AlarmDescription).not.toMatch(/budget split|lower workerMaxConcurrency/);
  });
});
