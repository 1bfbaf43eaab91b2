/**
 * `sweepSchedule` takes 1–720 minutes (README, infra/context.ts), while Lambda takes an async
 * event age of 60 s to 6 hours: the sweeper's `maxEventAge` follows the period up to that ceiling,
 * so every documented schedule synthesizes.
 */
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.js';

describe('sweepSchedule: every documented value (1–720 minutes) synthesizes', () => {
  for (const minutes of [361, 720]) {
    it(`sweepSchedule=${minutes} synthesizes, with a sweeper maxEventAge Lambda accepts`, () => {
      let s: ReturnType<typeof synthesize> | undefined;
      try {
        s = synthesize({ sweepSchedule: String(minutes) }, { bundle: false });
        s.template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 1 });
        const configs = Object.values(s.template.findResources('AWS::Lambda::EventInvokeConfig')).map(
          (r) => (r as { Properties: { MaximumEventAgeInSeconds?: number } }).Properties,
        );
        for (const c of configs) {
          if (c.MaximumEventAgeInSeconds !== undefined) {
            expect(c.MaximumEventAgeInSeconds).toBeGreaterThanOrEqual(60);
            expect(c.MaximumEventAgeInSeconds).toBeLessThanOrEqual(21_600);
          }
        }
      } finally {
        s?.cleanup();
      }
    }, 120_000);
  }
});
