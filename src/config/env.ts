/**
 * Reading the environment, once, at the edge. A missing required variable fails loudly
 * with its name, so a misconfigured function dies at start with a message that says why.
 */

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

/** The value of `name`, or undefined when unset or empty. */
export function optionalEnv(name: string, env: Env = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** A positive integer from `name`, `fallback` when unset; a ConfigError when it is not a number. */
export function integerEnv(name: string, fallback: number, env: Env = process.env): number {
  const raw = optionalEnv(name, env);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError(`environment variable ${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}
