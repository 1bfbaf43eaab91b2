/**
 * The release tick is never run again: a missed tick is made good by the next one a minute
 * later. The rule's `retryAttempts: 0` covers EventBridge's retries only; Lambda's own async
 * retries (2 by default, for up to 6 hours, each re-run with its old schedule time as "now") are
 * turned off by the worker's async-invoke configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(() => s?.cleanup());

describe('the release tick', () => {
  it("is not retried by Lambda's async invocation either: the worker has an EventInvokeConfig with 0 retries", () => {
    const workerId = s.logicalId('Worker/Function');
    const configs = Object.values(s.json.Resources)
      .filter((r) => r.Type === 'AWS::Lambda::EventInvokeConfig')
      .map(
        (r) =>
          r.Properties as {
            FunctionName: unknown;
            MaximumRetryAttempts?: number;
            MaximumEventAgeInSeconds?: number;
          },
      )
      .filter((p) => JSON.stringify(p.FunctionName) === JSON.stringify({ Ref: workerId }));
    expect(configs, 'no async-invoke config on the worker: Lambda retries a failed tick twice').toHaveLength(
      1,
    );
    expect(configs[0]?.MaximumRetryAttempts).toBe(0);
    // A tick older than a couple of minutes is superseded by newer ones.
    expect(configs[0]?.MaximumEventAgeInSeconds ?? 21_600).toBeLessThanOrEqual(300);
  });
});
