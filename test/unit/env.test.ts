/**
 * Reading numbers and levels from the environment: a value we cannot use stops the start with a
 * ConfigError naming the variable, instead of being read loosely or bent into a default.
 */
import { describe, expect, it } from 'vitest';
import { booleanEnv, ConfigError, integerEnv, logLevelEnv } from '../../src/config/env.js';
import { environmentProvider } from '../../src/secrets/secrets.js';

describe('integerEnv', () => {
  it('reads decimal digits (spaces around them ignored), and the fallback when unset or empty', () => {
    expect(integerEnv('PORT', 8787, { PORT: '8080' })).toBe(8080);
    expect(integerEnv('PORT', 8787, { PORT: ' 0 ' })).toBe(0);
    expect(integerEnv('PORT', 8787, {})).toBe(8787);
    expect(integerEnv('PORT', 8787, { PORT: '' })).toBe(8787);
  });

  it.each(['0x1F90', '8e3', '8080.0', '+8080', '-1', '80 80', 'eighty', '99999999999999999999'])(
    'refuses %j, naming the variable',
    (raw) => {
      expect(() => integerEnv('PORT', 8787, { PORT: raw })).toThrow(ConfigError);
      expect(() => integerEnv('PORT', 8787, { PORT: raw })).toThrow(
        `environment variable PORT must be a whole number at least 0, got "${raw}"`,
      );
    },
  );

  it('refuses values outside the bounds given', () => {
    expect(() => integerEnv('SWEEPER_PAGE_SIZE', 1000, { SWEEPER_PAGE_SIZE: '0' }, { min: 1 })).toThrow(
      'environment variable SWEEPER_PAGE_SIZE must be a whole number at least 1, got "0"',
    );
    expect(() => integerEnv('PORT', 8787, { PORT: '65536' }, { max: 65_535 })).toThrow(
      'environment variable PORT must be a whole number from 0 to 65535, got "65536"',
    );
    expect(integerEnv('PORT', 8787, { PORT: '65535' }, { max: 65_535 })).toBe(65_535);
  });
});

describe('booleanEnv', () => {
  const name = 'CONSOLE_RESPECT_REVIEW_SETTINGS';

  it('reads true and false (spaces around them ignored), and the fallback when unset or empty', () => {
    expect(booleanEnv(name, false, { [name]: 'true' })).toBe(true);
    expect(booleanEnv(name, true, { [name]: ' false ' })).toBe(false);
    expect(booleanEnv(name, true, {})).toBe(true);
    expect(booleanEnv(name, false, { [name]: '' })).toBe(false);
  });

  it.each(['1', '0', 'yes', 'no', 'TRUE', 'False', 'on', 'ture'])(
    'refuses %j, naming the variable',
    (raw) => {
      expect(() => booleanEnv(name, true, { [name]: raw })).toThrow(ConfigError);
      expect(() => booleanEnv(name, true, { [name]: raw })).toThrow(
        `environment variable ${name} must be true or false, got "${raw}"`,
      );
    },
  );
});

describe('logLevelEnv', () => {
  it('takes the four levels, and nothing when unset', () => {
    for (const level of ['debug', 'info', 'warn', 'error'])
      expect(logLevelEnv({ LOG_LEVEL: level })).toBe(level);
    expect(logLevelEnv({})).toBeUndefined();
  });

  it('refuses any other level, naming the variable and the levels', () => {
    expect(() => logLevelEnv({ LOG_LEVEL: 'verbose' })).toThrow(
      'environment variable LOG_LEVEL must be one of debug, info, warn, error, got "verbose"',
    );
  });
});

describe('environmentProvider (local credentials)', () => {
  it('refuses to start without a required key, naming its variable', () => {
    expect(() => environmentProvider({}, 'worker', ['consoleApiKey'])).toThrow(ConfigError);
    expect(() => environmentProvider({ CONSOLE_API_KEY: ' ' }, 'worker', ['consoleApiKey'])).toThrow(
      'set CONSOLE_API_KEY (local), or AUTOPILOT_SECRET_ID (Lambda): this function needs it',
    );
  });

  it('takes any one of a list of keys', async () => {
    const provider = environmentProvider({ CONSOLE_READ_ONLY_API_KEY: 'read-key' }, 'webhook', [
      ['consoleReadOnlyApiKey', 'consoleApiKey'],
    ]);
    expect((await provider.get()).consoleReadOnlyApiKey).toBe('read-key');
  });

  it('requires nothing unless asked', async () => {
    expect((await environmentProvider({}).get()).consoleApiKey).toBe('');
  });
});
