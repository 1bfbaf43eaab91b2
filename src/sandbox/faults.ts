/**
 * Fault injection. Every request to the API draws the same four numbers from the sandbox's
 * fault PRNG, so a fault sequence is a function of the seed and the order of requests —
 * reproducible. A fault is decided before the route runs: a faulted request changes nothing,
 * except `hangAfterEffectRate`, which applies the effect and then never answers (the worst
 * case for at-most-once tests).
 */
import type { Rng } from './prng.js';

export type FaultConfig = {
  /** Added before every answer: a fixed number of ms or a uniform range. */
  latencyMs: number | { min: number; max: number };
  /** Share of requests answered 500/502/503. */
  errorRate: number;
  /** Share of requests answered 429 (injected, apart from the real rate limits). */
  rateLimitRate: number;
  /** Retry-After seconds on injected 429s; null omits the header. Default 1. */
  retryAfterSeconds?: number | null;
  /** Share of requests that never answer (until the client gives up or the sandbox closes). */
  hangRate: number;
  /** Share of requests answered with invalid JSON, HTML or an empty body (status 200 or 500). */
  malformedRate: number;
  /** Faults hit only mutations or only reads; default both. */
  only?: 'mutations' | 'reads';
  /** Share of requests whose effect is applied and whose response then never comes. */
  hangAfterEffectRate?: number;
  /** Pin the malformed body kind (default: drawn). */
  malformedKind?: MalformedKind;
  /** Pin the malformed status (default: drawn, 200 or 500). */
  malformedStatus?: 200 | 500;
};

export type MalformedKind = 'invalid-json' | 'html' | 'empty';
const MALFORMED_KINDS: readonly MalformedKind[] = ['invalid-json', 'html', 'empty'];
const ERROR_STATUSES = [500, 502, 503] as const;

export const NO_FAULTS: FaultConfig = {
  latencyMs: 0,
  errorRate: 0,
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  hangRate: 0,
  malformedRate: 0,
  hangAfterEffectRate: 0,
};

export type FaultDecision =
  | { kind: 'none'; latencyMs: number }
  | { kind: 'error'; latencyMs: number; status: 500 | 502 | 503 }
  | { kind: 'rate-limit'; latencyMs: number; retryAfterSeconds: number | null }
  | { kind: 'hang'; latencyMs: number }
  | { kind: 'malformed'; latencyMs: number; body: MalformedKind; status: 200 | 500 }
  | { kind: 'hang-after-effect'; latencyMs: number };

export function decideFault(rng: Rng, f: FaultConfig, isMutation: boolean): FaultDecision {
  // Always draw the same count, whatever the config, so sequences stay aligned across configs.
  const rLatency = rng.next();
  const rKind = rng.next();
  const rSub = rng.next();
  const rSub2 = rng.next();
  const latencyMs =
    typeof f.latencyMs === 'number'
      ? f.latencyMs
      : Math.round(f.latencyMs.min + rLatency * (f.latencyMs.max - f.latencyMs.min));
  const targeted = f.only === undefined || (f.only === 'mutations') === isMutation;
  if (!targeted) return { kind: 'none', latencyMs };
  let edge = f.errorRate;
  if (rKind < edge) return { kind: 'error', latencyMs, status: ERROR_STATUSES[Math.floor(rSub * 3)] ?? 500 };
  edge += f.rateLimitRate;
  if (rKind < edge) {
    return {
      kind: 'rate-limit',
      latencyMs,
      retryAfterSeconds: f.retryAfterSeconds === undefined ? 1 : f.retryAfterSeconds,
    };
  }
  edge += f.hangRate;
  if (rKind < edge) return { kind: 'hang', latencyMs };
  edge += f.malformedRate;
  if (rKind < edge) {
    return {
      kind: 'malformed',
      latencyMs,
      body: f.malformedKind ?? (MALFORMED_KINDS[Math.floor(rSub * 3)] as MalformedKind),
      status: f.malformedStatus ?? (rSub2 < 0.5 ? 200 : 500),
    };
  }
  edge += f.hangAfterEffectRate ?? 0;
  if (rKind < edge) return { kind: 'hang-after-effect', latencyMs };
  return { kind: 'none', latencyMs };
}

export function malformedResponse(kind: MalformedKind, status: 200 | 500): Response {
  switch (kind) {
    case 'invalid-json':
      return new Response('{"message": "Segment read successfully.", "data": {"id": "beta_te', {
        status,
        headers: { 'content-type': 'application/json' },
      });
    case 'html':
      return new Response(
        '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>',
        {
          status,
          headers: { 'content-type': 'text/html' },
        },
      );
    case 'empty':
      return new Response(null, { status, headers: { 'content-type': 'application/json' } });
  }
}

/**
 * Fault settings from the environment (the standalone server and the local stack):
 * SANDBOX_LATENCY_MS (`20` or `10-80`), SANDBOX_ERROR_RATE, SANDBOX_RATE_LIMIT_RATE,
 * SANDBOX_RETRY_AFTER_SECONDS (`none` omits the header), SANDBOX_HANG_RATE,
 * SANDBOX_MALFORMED_RATE, SANDBOX_HANG_AFTER_EFFECT_RATE, SANDBOX_FAULTS_ONLY (mutations|reads).
 */
export function faultsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<FaultConfig> {
  const out: Partial<FaultConfig> = {};
  const rate = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || n > 1)
      throw new Error(`${name} must be a number between 0 and 1, got "${raw}"`);
    return n;
  };
  const latency = env.SANDBOX_LATENCY_MS;
  if (latency !== undefined && latency !== '') {
    const m = /^(\d+)(?:-(\d+))?$/.exec(latency.trim());
    if (!m) throw new Error(`SANDBOX_LATENCY_MS must be "20" or "10-80", got "${latency}"`);
    out.latencyMs = m[2] === undefined ? Number(m[1]) : { min: Number(m[1]), max: Number(m[2]) };
  }
  const set = <
    K extends 'errorRate' | 'rateLimitRate' | 'hangRate' | 'malformedRate' | 'hangAfterEffectRate',
  >(
    key: K,
    name: string,
  ) => {
    const v = rate(name);
    if (v !== undefined) out[key] = v;
  };
  set('errorRate', 'SANDBOX_ERROR_RATE');
  set('rateLimitRate', 'SANDBOX_RATE_LIMIT_RATE');
  set('hangRate', 'SANDBOX_HANG_RATE');
  set('malformedRate', 'SANDBOX_MALFORMED_RATE');
  set('hangAfterEffectRate', 'SANDBOX_HANG_AFTER_EFFECT_RATE');
  const retryAfter = env.SANDBOX_RETRY_AFTER_SECONDS;
  if (retryAfter !== undefined && retryAfter !== '') {
    if (retryAfter === 'none') out.retryAfterSeconds = null;
    else {
      // Decimal digits only, as every count of the project: Number() would read 0x10, 1e1 or 2.0.
      const digits = retryAfter.trim();
      if (!/^\d+$/.test(digits) || !Number.isSafeInteger(Number(digits)))
        throw new Error(
          `SANDBOX_RETRY_AFTER_SECONDS must be a whole number of seconds or "none", got "${retryAfter}"`,
        );
      out.retryAfterSeconds = Number(digits);
    }
  }
  const only = env.SANDBOX_FAULTS_ONLY;
  if (only === 'mutations' || only === 'reads') out.only = only;
  else if (only !== undefined && only !== '')
    throw new Error('SANDBOX_FAULTS_ONLY must be "mutations" or "reads"');
  return out;
}
