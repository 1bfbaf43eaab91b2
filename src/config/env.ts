/**
 * Reading the environment, once, at the edge. A missing required variable fails loudly
 * with its name, so a misconfigured function dies at start with a message that says why.
 * So does a value we cannot use: a typo never turns silently into a default.
 */
import type { LogLevel } from '../observability/logger.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** The value of `name`, or a ConfigError naming the variable when it is unset or empty. */
export function requireEnv(name: string, env: Env = process.env): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new ConfigError(`environment variable ${name} is required but not set`);
  }
  return value;
}

/**
 * An absolute http(s) URL from `name` (required), or a ConfigError naming the variable: a value
 * without its scheme (`console.example.com`) or without a host (`https://`) would otherwise fail
 * later, or be refused by whoever uses it without the variable's name. The value is not echoed:
 * a URL may carry credentials.
 */
export function httpUrlEnv(name: string, env: Env = process.env): string {
  const value = requireEnv(name, env).trim();
  let ok = /^https?:\/\/[^/]/i.test(value);
  try {
    ok &&= ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new ConfigError(
      `environment variable ${name} must be an absolute http(s) URL (e.g. https://console.example.com)`,
    );
  return value;
}

/** The value of `name`, or undefined when unset or empty. */
export function optionalEnv(name: string, env: Env = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

export interface IntegerBounds {
  /** The smallest value that makes sense (default 0). */
  min?: number;
  /** The largest value that makes sense (default the largest safe integer). */
  max?: number;
}

/**
 * A whole number from `name` in `[min, max]`, `fallback` when unset; a ConfigError naming the
 * variable otherwise. Decimal digits only: `Number()` would also read `0x1F90`, `8e3` or `1.0`,
 * and a value out of range (a 0 where at least 1 is needed) would otherwise be bent into one
 * silently by whoever uses it.
 */
export function integerEnv(
  name: string,
  fallback: number,
  env: Env = process.env,
  { min = 0, max = Number.MAX_SAFE_INTEGER }: IntegerBounds = {},
): number {
  const raw = optionalEnv(name, env);
  if (raw === undefined) return fallback;
  const digits = raw.trim();
  const value = Number(digits);
  if (!/^\d+$/.test(digits) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`environment variable ${name} must be a whole number ${range}, got "${raw}"`);
  }
  return value;
}

/**
 * `true` or `false` from `name`, `fallback` when unset or empty; a ConfigError naming the variable
 * otherwise. Nothing looser (`1`, `yes`, `TRUE`): a setting that guards production changes must not
 * be read one way by us and meant another by whoever typed it.
 */
export function booleanEnv(name: string, fallback: boolean, env: Env = process.env): boolean {
  const raw = optionalEnv(name, env);
  if (raw === undefined) return fallback;
  const value = raw.trim();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(`environment variable ${name} must be true or false, got "${raw}"`);
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const satisfies readonly LogLevel[];

/**
 * `LOG_LEVEL`, or undefined when unset. An unknown level is refused: the logger would fall back
 * to `info`, and `LOG_LEVEL=verbose` would quietly drop the debug lines it was set to get.
 */
export function logLevelEnv(env: Env = process.env): LogLevel | undefined {
  const raw = optionalEnv('LOG_LEVEL', env);
  if (raw === undefined) return undefined;
  const level = LOG_LEVELS.find((known) => known === raw.trim());
  if (!level) {
    throw new ConfigError(
      `environment variable LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`,
    );
  }
  return level;
}
