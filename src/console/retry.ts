/**
 * Retry policy in one place: which failures are retried for which kind of operation, and
 * how long to wait (Retry-After when the server sent one, else exponential backoff with
 * full jitter). Pure functions; the transport applies them.
 */
import { ApiConnectionError, ApiError, isTransientError, RateLimitError } from './errors.js';

/**
 * `idempotent`: GET, PUT, PATCH and the POSTs that set state (disable groups, metric update).
 * `create`: POSTs that create something (qualifying event, team): a retry after the request
 * reached the server could create it twice, so only 429 and failures before sending retry.
 */
export type RetryMode = 'idempotent' | 'create';

export function shouldRetry(error: unknown, mode: RetryMode): boolean {
  if (mode === 'idempotent') return isTransientError(error);
  if (error instanceof ApiConnectionError) return !error.requestSent;
  return error instanceof ApiError && error.status === 429;
}

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 8_000;

/** Full jitter: uniform in [0, min(cap, base × 2^attempt)). `attempt` counts from 0. */
export function backoffDelay(
  attempt: number,
  random: () => number,
  baseMs = BACKOFF_BASE_MS,
  capMs = BACKOFF_CAP_MS,
): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/** A number, alone or first of a repeated header (`5, 5`: fetch joins repeated headers so). */
const DELAY = /^\s*(\d+(?:\.\d+)?)\s*(?:,|$)/;
/** The three HTTP-date forms (RFC 9110 5.6.7), first of a repeated header too. */
const HTTP_DATE =
  /^\s*([A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})\s*(?:,|$)/;

/**
 * `Retry-After` as delay-seconds or an HTTP date (RFC 9110), or the non-standard
 * `retry-after-ms`. Undefined when absent or unreadable (then backoff applies); never negative.
 * Only real HTTP dates go to `Date.parse`: it reads almost anything (`-1`, `12 13`) as a date
 * long past, which would mean "retry at once".
 */
export function parseRetryAfter(headers: Record<string, string>, now: number): number | undefined {
  const ms = DELAY.exec(headers['retry-after-ms'] ?? '');
  if (ms) return Math.max(0, Number(ms[1]));
  const value = headers['retry-after'] ?? '';
  const seconds = DELAY.exec(value);
  if (seconds) return Math.max(0, Number(seconds[1]) * 1000);
  const date = HTTP_DATE.exec(value)?.[1];
  // asctime carries no zone and means GMT; Date.parse would read it in the machine's zone.
  const at = date ? Date.parse(date.endsWith('GMT') ? date : `${date} GMT`) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before retry number `attempt + 1`: the server's Retry-After (on a 429, or
 * a 503 that sends one), else full-jitter backoff capped by `maxRetryDelayMs`. A Retry-After
 * longer than `maxRetryDelayMs` means no retry (undefined): sent sooner, it could only be
 * refused again (a 15-minute window's 429 asks for minutes), so the caller learns it at once.
 * A Retry-After of 0 (or a date past) is backoff, at least `BACKOFF_BASE_MS`: the platform's own
 * answers at least 1 s (its limits are counted in seconds: 100 per 10 s, 900 per 15 min), so 0
 * is a gateway's, and believed it sent every retry at once into the window that refused it.
 */
export function retryDelay(
  error: unknown,
  attempt: number,
  random: () => number,
  maxRetryDelayMs: number,
  now: number,
): number | undefined {
  const retryAfterMs =
    error instanceof RateLimitError
      ? error.retryAfterMs
      : error instanceof ApiError
        ? parseRetryAfter(error.headers, now)
        : undefined;
  if (retryAfterMs !== undefined && retryAfterMs > 0)
    return retryAfterMs <= maxRetryDelayMs ? retryAfterMs : undefined;
  const backoff = backoffDelay(attempt, random, BACKOFF_BASE_MS, Math.min(BACKOFF_CAP_MS, maxRetryDelayMs));
  return retryAfterMs === 0 ? Math.min(maxRetryDelayMs, Math.max(BACKOFF_BASE_MS, backoff)) : backoff;
}
