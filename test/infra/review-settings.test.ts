/**
 * The worker's mutations respect the platform's review settings unless the operator turns that
 * off (context `respectReviewSettings` → the worker's `CONSOLE_RESPECT_REVIEW_SETTINGS`, read by
 * src/wiring/review-settings.ts). Only the worker mutates: the webhook and the sweeper get nothing.
 */
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.js';

type FunctionProps = { Description?: string; Environment?: { Variables?: Record<string, unknown> } };

const WARNING = 'autopilot:review-settings-bypassed';

function synth(context: Record<string, unknown>) {
  const s = synthesize(context, { bundle: false });
  try {
    const functions = Object.values(s.template.findResources('AWS::Lambda::Function')).map(
      (f) => f.Properties as FunctionProps,
    );
    const setting = (role: string) =>
      functions.find((f) => f.Description?.includes(role))?.Environment?.Variables
        ?.CONSOLE_RESPECT_REVIEW_SETTINGS;
    const warnings = s.assembly.stacks
      .flatMap((stack) => stack.messages)
      .filter((m) => m.level === 'warning' && String(m.entry.data).includes(WARNING));
    return {
      worker: setting('policy-gated actions'),
      webhook: setting('Slack slash commands'),
      sweeper: setting('scheduled event polling'),
      warned: warnings.length > 0,
    };
  } finally {
    s.cleanup();
  }
}

describe('respectReviewSettings', () => {
  it('gives the worker CONSOLE_RESPECT_REVIEW_SETTINGS=true by default, and no other function the variable', () => {
    expect(synth({})).toEqual({ worker: 'true', webhook: undefined, sweeper: undefined, warned: false });
  }, 120_000);

  it('takes the context key as -c text or a cdk.json boolean; false warns at synth', () => {
    expect(synth({ respectReviewSettings: 'true' })).toMatchObject({ worker: 'true', warned: false });
    expect(synth({ respectReviewSettings: true })).toMatchObject({ worker: 'true', warned: false });
    expect(synth({ respectReviewSettings: 'false' })).toMatchObject({ worker: 'false', warned: true });
    expect(synth({ respectReviewSettings: false })).toEqual({
      worker: 'false',
      webhook: undefined,
      sweeper: undefined,
      warned: true,
    });
  }, 120_000);

  it('takes only true or false', () => {
    expect(() => synth({ respectReviewSettings: 'no' })).toThrow(
      'context value "respectReviewSettings" must be true or false, got "no"',
    );
  });
});
