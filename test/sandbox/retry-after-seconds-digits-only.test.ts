/**
 * README "Environment": "Numbers are decimal digits only (`0x1F90`, `8e3` or `1.0` are not read as
 * numbers)", and the sandbox reads its own variables the same way (`src/sandbox/env-config.ts`:
 * "Decimal digits only, as every variable of the project"). `SANDBOX_RETRY_AFTER_SECONDS` (README
 * "Console API sandbox": seconds on injected 429s, or `none`) took `0x10` as 16 s, `1e1` as 10 s and
 * `2.0` as 2 s, where every other count of the sandbox refuses them with the variable's name.
 */
import { describe, expect, it } from 'vitest';
import { faultsFromEnv } from '../../src/sandbox/faults.js';

describe('SANDBOX_RETRY_AFTER_SECONDS', () => {
  it.each([['0x10'], ['1e1'], ['2.0'], ['-1'], ['+3']])('refuses %s, naming the variable', (value) => {
    expect(() => faultsFromEnv({ SANDBOX_RETRY_AFTER_SECONDS: value })).toThrow(
      /SANDBOX_RETRY_AFTER_SECONDS/,
    );
  });

  it('takes decimal digits and none', () => {
    expect(faultsFromEnv({ SANDBOX_RETRY_AFTER_SECONDS: '16' }).retryAfterSeconds).toBe(16);
    expect(faultsFromEnv({ SANDBOX_RETRY_AFTER_SECONDS: '0' }).retryAfterSeconds).toBe(0);
    expect(faultsFromEnv({ SANDBOX_RETRY_AFTER_SECONDS: 'none' }).retryAfterSeconds).toBeNull();
  });
});
