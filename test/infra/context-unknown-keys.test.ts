/**
 * `-c policy=prod.json` deployed the shipped policy.json: the misspelt-key check only caught keys
 * within a few letters of ours (`policy` is four from `policyFile`), and every other key was left
 * alone, so a typo silently changed what was deployed. Now any context key that is neither ours
 * nor CDK's own stops the synth with one line naming it and the nearest keys we read. This
 * reverses the promise of the former context-unrelated-keys test (a pipeline's `-c ci=true` was
 * left alone): such a key is indistinguishable from a typo of ours. CDK's own keys (feature flags
 * `@aws-cdk/...`, `aws-cdk:...`, `aws:cdk:*`, lookups with `:`, and the plain keys its CLI writes
 * into cdk.json / cdk.context.json) still pass, and so does the repository's cdk.json (synth.ts
 * applies it to every synth).
 */
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.js';

const refusal = (key: string, ...nearest: string[]) =>
  new RegExp(
    `^context value "${key}" is not one console-autopilot reads[^\\n]*${nearest.map((k) => `"${k}"`).join('[^\\n]*')}[^\\n]*$`,
  );

describe('a context key that is neither ours nor CDK’s', () => {
  it('stops the synth, naming the keys that start like it (policy → policyFile, policyTests)', () => {
    expect(() => synthesize({ policy: 'prod.json' }, { bundle: false })).toThrow(
      refusal('policy', 'policyFile', 'policyTests'),
    );
  });

  it.each([
    ['ci', 'ciPrincipals'],
    ['test', 'policyTests'],
    ['secret', 'existingSecretArn'],
    ['url', 'consoleApiBaseUrl'],
    ['runtime', 'nodeRuntime'],
    ['schedule', 'sweepSchedule'],
  ])('stops the synth on "%s", naming "%s"', (key, near) => {
    expect(() => synthesize({ [key]: 'x' }, { bundle: false })).toThrow(refusal(key, near));
  });

  it('stops the synth on a key like none of ours, still listing the nearest ones', () => {
    expect(() => synthesize({ stage: 'prod' }, { bundle: false })).toThrow(
      /^context value "stage" is not one console-autopilot reads[^\n]*nearest[^\n]*"[a-zA-Z0-9]+"[^\n]*$/,
    );
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
