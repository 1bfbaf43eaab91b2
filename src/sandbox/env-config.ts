/**
 * Sandbox options from the environment (the standalone server; reusable by the local stack).
 * Read once, at the edge; a bad value fails loudly with the variable's name.
 */
import { faultsFromEnv } from './faults.js';
import { PLATFORM_LIMITS } from './rate-limit.js';
import { DEFAULT_API_KEY } from './sandbox.js';
import type { StartSandboxOptions } from './server.js';

type Env = Record<string, string | undefined>;

/**
 * A bad sandbox variable. The sandbox reads its environment with its own few lines rather than
 * the functions' (src/config/env.ts): it shares no module with the client it checks.
 */
export class SandboxConfigError extends Error {
  override name = 'SandboxConfigError';
}

function optionalEnv(name: string, env: Env): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Decimal digits only, as every variable of the project (README, "Environment"): `Number()` would
 * read `0x10` or `1e3`. `max` keeps a port in range: past 65535 `listen` throws a RangeError.
 */
function integerEnv(name: string, fallback: number, env: Env, max = Number.MAX_SAFE_INTEGER): number {
  const raw = optionalEnv(name, env);
  if (raw === undefined) return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? 'a non-negative integer' : `a whole number from 0 to ${max}`;
    throw new SandboxConfigError(`environment variable ${name} must be ${range}, got "${raw}"`);
  }
  return value;
}

/**
 * SANDBOX_PORT (4010), SANDBOX_HOST (127.0.0.1), SANDBOX_API_KEY (`sandbox-key`; several
 * comma-separated), SANDBOX_SEED, SANDBOX_EVENT_COUNT (2000), SANDBOX_EVENT_ORDER
 * (newest-first | oldest-first), SANDBOX_RATE_LIMITS (`on` = the platform's 100/10s,900/15m;
 * `off`; `noretryafter` keeps them but omits Retry-After; or windows like `100/100ms,900/9s`),
 * SANDBOX_READ_ONLY_API_KEY (keys answered 403 on mutations), SANDBOX_REVIEWS (approve | wait:
 * what an approve of a review-required phase with the review header answers), plus the fault
 * variables of `faultsFromEnv`.
 */
export function sandboxOptionsFromEnv(env: Env = process.env): StartSandboxOptions & { port: number } {
  const options: StartSandboxOptions & { port: number } = {
    port: integerEnv('SANDBOX_PORT', 4010, env, 65_535),
    host: optionalEnv('SANDBOX_HOST', env) ?? '127.0.0.1',
    apiKeys: (optionalEnv('SANDBOX_API_KEY', env) ?? DEFAULT_API_KEY)
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
    eventCount: integerEnv('SANDBOX_EVENT_COUNT', 2000, env),
    faults: faultsFromEnv(env as NodeJS.ProcessEnv),
  };
  const seed = optionalEnv('SANDBOX_SEED', env);
  if (seed !== undefined) options.seed = integerEnv('SANDBOX_SEED', 0, env);
  const order = optionalEnv('SANDBOX_EVENT_ORDER', env);
  if (order !== undefined) {
    if (order !== 'newest-first' && order !== 'oldest-first') {
      throw new SandboxConfigError(
        'environment variable SANDBOX_EVENT_ORDER must be newest-first or oldest-first',
      );
    }
    options.eventOrder = order;
  }
  const reviews = optionalEnv('SANDBOX_REVIEWS', env);
  if (reviews !== undefined) {
    if (reviews !== 'approve' && reviews !== 'wait')
      throw new SandboxConfigError('environment variable SANDBOX_REVIEWS must be approve or wait');
    options.reviews = reviews;
  }
  const limits = optionalEnv('SANDBOX_RATE_LIMITS', env);
  if (limits === 'off') options.rateLimits = false;
  else if (limits === 'noretryafter') options.rateLimits = { ...PLATFORM_LIMITS, retryAfter: false };
  else if (limits !== undefined && limits !== 'on') options.rateLimits = { limits: parseWindows(limits) };
  const readOnly = optionalEnv('SANDBOX_READ_ONLY_API_KEY', env);
  if (readOnly !== undefined) options.readOnlyApiKeys = readOnly.split(',').map((k) => k.trim());
  return options;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** `100/10s,900/15m` → limits; a malformed list fails with the variable's name. */
function parseWindows(raw: string): Array<{ max: number; perMs: number }> {
  return raw.split(',').map((part) => {
    const m = /^\s*(\d+)\s*\/\s*(\d+)\s*(ms|s|m|min|h)\s*$/.exec(part);
    if (!m) {
      throw new SandboxConfigError(
        `environment variable SANDBOX_RATE_LIMITS must be on, off, noretryafter or windows like 100/10s,900/15m; got "${raw}"`,
      );
    }
    return { max: Number(m[1]), perMs: Number(m[2]) * (UNIT_MS[m[3] as string] as number) };
  });
}
