import { describe, expect, it } from 'vitest';
import { sandboxOptionsFromEnv } from '../../src/sandbox/env-config.js';
import { faultsFromEnv } from '../../src/sandbox/index.js';

describe('sandbox configuration from the environment', () => {
  it('uses the documented defaults', () => {
    expect(sandboxOptionsFromEnv({})).toEqual({
      port: 4010,
      host: '127.0.0.1',
      apiKeys: ['sandbox-key'],
      eventCount: 2000,
      faults: {},
    });
  });

  it('reads keys, order, seed, rate limits and faults', () => {
    const options = sandboxOptionsFromEnv({
      SANDBOX_PORT: '4555',
      SANDBOX_API_KEY: 'k1, k2',
      SANDBOX_EVENT_ORDER: 'oldest-first',
      SANDBOX_SEED: '42',
      SANDBOX_RATE_LIMITS: 'off',
      SANDBOX_LATENCY_MS: '10-80',
      SANDBOX_ERROR_RATE: '0.1',
      SANDBOX_RATE_LIMIT_RATE: '0.05',
      SANDBOX_RETRY_AFTER_SECONDS: 'none',
      SANDBOX_HANG_RATE: '0.01',
      SANDBOX_MALFORMED_RATE: '0.02',
      SANDBOX_HANG_AFTER_EFFECT_RATE: '0.03',
      SANDBOX_FAULTS_ONLY: 'mutations',
    });
    expect(options).toMatchObject({
      port: 4555,
      apiKeys: ['k1', 'k2'],
      eventOrder: 'oldest-first',
      seed: 42,
      rateLimits: false,
      faults: {
        latencyMs: { min: 10, max: 80 },
        errorRate: 0.1,
        rateLimitRate: 0.05,
        retryAfterSeconds: null,
        hangRate: 0.01,
        malformedRate: 0.02,
        hangAfterEffectRate: 0.03,
        only: 'mutations',
      },
    });
    expect(faultsFromEnv({ SANDBOX_LATENCY_MS: '20' })).toEqual({ latencyMs: 20 });
    expect(sandboxOptionsFromEnv({ SANDBOX_RATE_LIMITS: 'noretryafter' }).rateLimits).toMatchObject({
      retryAfter: false,
    });
    expect(sandboxOptionsFromEnv({ SANDBOX_RATE_LIMITS: '100/100ms, 900/9s' }).rateLimits).toEqual({
      limits: [
        { max: 100, perMs: 100 },
        { max: 900, perMs: 9000 },
      ],
    });
    expect(sandboxOptionsFromEnv({ SANDBOX_READ_ONLY_API_KEY: 'viewer' }).readOnlyApiKeys).toEqual([
      'viewer',
    ]);
    expect(sandboxOptionsFromEnv({ SANDBOX_REVIEWS: 'wait' }).reviews).toBe('wait');
    expect(sandboxOptionsFromEnv({ SANDBOX_REVIEWS: 'approve' }).reviews).toBe('approve');
    expect(sandboxOptionsFromEnv({}).reviews).toBeUndefined();
  });

  it('fails loudly, naming the variable, on a bad value', () => {
    expect(() => faultsFromEnv({ SANDBOX_ERROR_RATE: '2' })).toThrow(/SANDBOX_ERROR_RATE/);
    expect(() => faultsFromEnv({ SANDBOX_LATENCY_MS: 'slow' })).toThrow(/SANDBOX_LATENCY_MS/);
    expect(() => sandboxOptionsFromEnv({ SANDBOX_EVENT_ORDER: 'random' })).toThrow(/SANDBOX_EVENT_ORDER/);
    expect(() => sandboxOptionsFromEnv({ SANDBOX_RATE_LIMITS: 'maybe' })).toThrow(/SANDBOX_RATE_LIMITS/);
    expect(() => sandboxOptionsFromEnv({ SANDBOX_PORT: 'x' })).toThrow(/SANDBOX_PORT/);
    expect(() => sandboxOptionsFromEnv({ SANDBOX_REVIEWS: 'hold' })).toThrow(
      'environment variable SANDBOX_REVIEWS must be approve or wait',
    );
  });
});
