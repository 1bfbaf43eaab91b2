/**
 * The sweeper's reserved concurrency can be left out (`reserveSweeperConcurrency=false`): Lambda
 * refuses any reservation in an account whose concurrency limit is 10, so the deploy failed there.
 */
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.js';

const reservations = (context: Record<string, unknown>) => {
  const s = synthesize(context, { bundle: false });
  try {
    return Object.values(s.template.findResources('AWS::Lambda::Function')).map(
      (f) => (f.Properties as { ReservedConcurrentExecutions?: number }).ReservedConcurrentExecutions,
    );
  } finally {
    s.cleanup();
  }
};

describe('reserveSweeperConcurrency', () => {
  it('reserves one execution for the sweeper by default, none when set false (-c text or cdk.json boolean)', () => {
    expect(reservations({}).filter((r) => r !== undefined)).toEqual([1]);
    expect(reservations({ reserveSweeperConcurrency: 'false' }).filter((r) => r !== undefined)).toEqual([]);
    expect(reservations({ reserveSweeperConcurrency: false }).filter((r) => r !== undefined)).toEqual([]);
  }, 120_000);

  it('takes only true or false', () => {
    expect(() => reservations({ reserveSweeperConcurrency: 'no' })).toThrow(
      'context value "reserveSweeperConcurrency" must be true or false, got "no"',
    );
  });
});
