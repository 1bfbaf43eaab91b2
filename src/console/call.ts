/**
 * The shapes a call to the Console API is described by: the key provider, per-call options,
 * what the transport reports to an observer, its configuration, and one call (method, path,
 * body, retry mode, response schema). The transport (http.ts) carries them out.
 */
import type * as z from 'zod/mini';
import type { HttpSend } from '../http/send.js';
import type { Logger } from '../observability/logger.js';
import type { MutationBudget } from './rate-limiter.js';
import type { RetryMode } from './retry.js';

/**
 * The key, or a function asked for it once per call and once more after a 401 (for rotated
 * keys), then with `afterUnauthorized: true` so that a caching provider can re-read its source.
 *
 * @example
 * const apiKey: ApiKeyProvider = async ({ afterUnauthorized }) => {
 *   if (afterUnauthorized) await secrets.refresh();
 *   return (await secrets.get()).consoleApiKey;
 * };
 */
export type ApiKeyProvider = string | ((context: { afterUnauthorized: boolean }) => string | Promise<string>);

/** Per-call options of every client method. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Per attempt; default the client's `timeoutMs` (10 s). */
  timeoutMs?: number;
  /** Epoch ms: no attempt runs and no retry wait lasts past it (e.g. a Lambda's remaining time). */
  deadline?: number;
  /** Default the client's `maxRetries` (2). */
  maxRetries?: number;
  /** Send `x-respect-review-settings: true` on this mutation; default the client's setting. */
  respectReviewSettings?: boolean;
}

/**
 * What the transport saw, for metrics: each attempt's answer (or failure) and its latency, and
 * each wait for the mutation budget. Called synchronously; it must not throw.
 */
export type ApiObservation =
  | {
      kind: 'response';
      method: HttpMethod;
      path: string;
      mutation: boolean;
      status: number;
      ms: number;
      /** A 401 the client answers by re-reading the key and trying again (a rotation): not yet a refused key. */
      keyReread?: boolean;
    }
  | {
      kind: 'failure';
      method: HttpMethod;
      mutation: boolean;
      /** `deadline`: the caller's deadline (e.g. the Lambda's remaining time) cut the attempt shorter than its timeout. */
      error: 'timeout' | 'deadline' | 'connection' | 'abort';
      ms: number;
    }
  | { kind: 'budget-wait'; ms: number };

export interface TransportConfig {
  baseUrl: string;
  apiKey: ApiKeyProvider;
  send: HttpSend;
  timeoutMs: number;
  maxRetries: number;
  maxRetryDelayMs: number;
  respectReviewSettings: boolean;
  limiter: MutationBudget | undefined;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  logger: Logger | undefined;
  observe?: ((observation: ApiObservation) => void) | undefined;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH';

export interface Call<T> {
  method: HttpMethod;
  /** A path under the base URL (already encoded), or an absolute URL (pagination links). */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  retry: RetryMode;
  /** Mutations take a token from the budget and may carry the review header. */
  mutation: boolean;
  schema: z.ZodMiniType<T>;
  /** The call resolves with the envelope's `data`, not the envelope (Transport.data). */
  data?: true;
}
