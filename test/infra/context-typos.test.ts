/**
 * A context key the stack does not know is ignored without a word: `-c alarmEmails=oncall@…`
 * deploys with nobody subscribed to the alarms, `-c sweepScheduleMinutes=5` (the prop's name)
 * sweeps every 15 minutes, `-c ciPrincipal=…` leaves the CI role denied. README promises that a
 * bad context value "stops the synth with one line naming the key"; a misspelled key is the
 * commonest bad value. CDK's own keys (feature flags, `aws:cdk:*`, lookups) stay allowed.
 */
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.js';

describe('context keys', () => {
  it.each([
    [{ alarmEmails: 'oncall@example.com' }, 'alarmEmail'],
    [{ sweepScheduleMinutes: '5' }, 'sweepSchedule'],
    [{ ciPrincipal: 'arn:aws:iam::123456789012:role/ci' }, 'ciPrincipals'],
    [{ alarmThrottledPer5min: '20' }, 'alarmThrottledPer5Min'],
    [{ workerConcurrency: '4' }, 'workerMaxConcurrency'],
    [
      { secretKmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/mrk-0123456789abcdef0123456789abcdef' },
      'secretsKmsKeyArn',
    ],
  ])('a misspelled key (%o) stops the synth, naming the key it resembles', (context, known) => {
    expect(() => synthesize(context, { bundle: false })).toThrow(
      new RegExp(`context value "${Object.keys(context)[0]}" is not one console-autopilot reads.*"${known}"`),
    );
  });

  it("leaves CDK's own keys alone", () => {
    const s = synthesize(
      {
        'acknowledged-issue-numbers': [32775],
        'availability-zones:account=123456789012:region=eu-west-1': ['eu-west-1a'],
        '@aws-cdk/core:newStyleStackSynthesis': true,
        'aws:cdk:enable-path-metadata': true,
      },
      { bundle: false },
    );
    s.cleanup();
  });
});
