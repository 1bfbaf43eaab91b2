/**
 * `-c policy=prod.json` deployed the shipped policy.json: the misspelt-key check only caught keys
 * within a few letters of ours (`policy` is four from `policyFile`), so a typo silently changed
 * what was deployed. A key that is most of the start of one of ours is now taken for it cut short
 * and stops the synth, naming the nearest keys we read. Keys that are not near ours are someone
 * else's and stay alone: a pipeline's `-c ci=true`, a shared cdk.json's `test` or `secret` (a
 * short word inside one of ours is no typo of it), and CDK's own keys, those its CLI writes into
 * cdk.json without a colon too. Misspellings stay caught (test/infra/context-typos.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.js';

describe('context keys that are not ours', () => {
  it('a key cut short stops the synth, naming the keys that start like it (policy → policyFile, policyTests)', () => {
    expect(() => synthesize({ policy: 'prod.json' }, { bundle: false })).toThrow(
      /^context value "policy" is not one console-autopilot reads[^\n]*"policyFile" or "policyTests"[^\n]*$/,
    );
  });

  it.each([
    [{ ci: 'true' }],
    [{ test: '1' }],
    [{ secret: 'shared' }],
    [{ url: 'https://example.com' }],
    [{ stage: 'prod' }],
  ])('an unrelated key (%o) is left alone', (context) => {
    synthesize(context, { bundle: false }).cleanup();
  });

  it("leaves CDK's own keys alone, those its CLI writes into cdk.json without a colon too", () => {
    synthesize(
      {
        'acknowledged-issue-numbers': [32775],
        'cli-telemetry': false,
        'aws-cdk:enableDiffNoFail': true,
        '@aws-cdk/core:bootstrapQualifier': 'hnb659fds',
        '@aws-cdk-containers/ecs-service-extensions:enableDefaultLogDriver': true,
        'availability-zones:account=123456789012:region=eu-west-1': ['eu-west-1a'],
        'aws:cdk:enable-path-metadata': true,
      },
      { bundle: false },
    ).cleanup();
  });
});
