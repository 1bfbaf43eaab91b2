/**
 * The transport every resource goes through: builds the URL, asks the key provider, applies
 * the mutation budget, runs each attempt under its timeout (bounded by the caller's
 * deadline), maps failures onto the error tree, retries what may be retried and validates
 * the response envelope. The API key lives only in the outgoing headers of an attempt: it
 * is scrubbed from anything the server echoes and never stored on an error.
 */

import type * as z from 'zod/mini';
import { HttpAbortError, HttpTimeoutError } from '../http/errors.js';
import type { HttpRequest, HttpResponse, HttpSend } from '../http/send.js';
import type { Logger } from '../observability/logger.js';
import { rememberSecret, scrubDeep, scrubSecrets } from '../util/secret-scrub.js';
import { formatIssues } from '../util/zod-issues.js';
import {
  ApiAbortError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  ConsoleError,
  makeApiError,
  ResponseValidationError,
} from './errors.js';
import type { MutationLimiter, Release } from './rate-limiter.js';
import { parseRetryAfter, type RetryMode, retryDelay, shouldRetry } from './retry.js';

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
  | { kind: 'response'; method: HttpMethod; path: string; mutation: boolean; status: number; ms: number }
  | {
      kind: 'failure';
      method: HttpMethod;
      mutation: boolean;
      error: 'timeout' | 'connection' | 'abort';
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
  limiter: MutationLimiter | undefined;
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
}

/** setTimeout's ceiling (about 24.8 days); longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2_147_483_647;

/** Connection failures that happen before any byte of the request is sent. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export class Transport {
  readonly baseUrl: string;
  private readonly knownKeys = new Set<string>();
  private plainHeaders: { key: string; headers: Readonly<Record<string, string>> } | undefined;

  constructor(private readonly config: TransportConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(this.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    if (typeof config.apiKey === 'string') {
      this.knownKeys.add(config.apiKey);
      rememberSecret(config.apiKey);
    }
  }

  /** Absolute URL of a call. */
  url(path: string, query?: Record<string, string | number | undefined>): string {
    // The common case (an encoded path, no query) needs no URL parsing: it is on every request.
    if (query === undefined && path.charCodeAt(0) === 47 /* '/' */) return this.baseUrl + path;
    const absolute = /^https?:\/\//i.test(path);
    if (!absolute && query === undefined) return this.baseUrl + path;
    const url = new URL(absolute ? path : this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  async request<T>(call: Call<T>, options: RequestOptions = {}): Promise<T> {
    const url = this.url(call.path, call.query);
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    let key = typeof this.config.apiKey === 'string' ? this.config.apiKey : await this.key(false);
    let keyRefreshed = false;

    for (let retry = 0; ; ) {
      if (options.signal?.aborted) throw new ApiAbortError('request aborted');
      let release: Release | undefined;
      if (call.mutation && this.config.limiter) {
        const asked = this.config.now();
        release = await this.config.limiter.acquire({ signal: options.signal, deadline: options.deadline });
        const waited = this.config.now() - asked;
        if (waited > 0) this.config.observe?.({ kind: 'budget-wait', ms: waited });
      }
      let error: ConsoleError;
      try {
        return await this.attempt(call, url, key, body, options);
      } catch (caught) {
        if (!(caught instanceof ConsoleError)) throw caught;
        error = caught;
      } finally {
        release?.();
      }

      if (error instanceof AuthenticationError && !keyRefreshed && typeof this.config.apiKey === 'function') {
        // A rotated key: ask the provider once more and try again once (not counted as a retry).
        keyRefreshed = true;
        key = await this.key(true);
        continue;
      }
      error.attempts = retry + 1;
      if (retry >= maxRetries || !shouldRetry(error, call.retry)) throw error;
      const now = this.config.now();
      const delay = retryDelay(error, retry, this.config.random, this.config.maxRetryDelayMs, now);
      if (options.deadline !== undefined && now + delay >= options.deadline) throw error;
      this.config.logger?.warn('console api retry', {
        method: call.method,
        path: pathOf(url),
        retry: retry + 1,
        delayMs: delay,
        error: error.name,
        ...(error instanceof ApiError ? { status: error.status } : {}),
      });
      await this.sleep(delay, options.signal);
      retry++;
    }
  }

  private async key(afterUnauthorized: boolean): Promise<string> {
    const provider = this.config.apiKey;
    const key = typeof provider === 'string' ? provider : await provider({ afterUnauthorized });
    if (typeof key !== 'string' || key === '') throw new ConsoleError('the API key provider returned no key');
    this.knownKeys.add(key);
    rememberSecret(key);
    // Remember the last few keys only (enough to scrub echoes of a key just rotated out).
    if (this.knownKeys.size > 4) this.knownKeys.delete(this.knownKeys.values().next().value as string);
    return key;
  }

  private async sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (ms <= 0) return;
    try {
      await this.config.sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw new ApiAbortError('request aborted while waiting to retry');
      throw error;
    }
  }

  private async attempt<T>(
    call: Call<T>,
    url: string,
    key: string,
    body: string | undefined,
    options: RequestOptions,
  ): Promise<T> {
    const timeLeft =
      options.deadline === undefined ? Number.POSITIVE_INFINITY : options.deadline - this.config.now();
    if (timeLeft <= 0)
      throw new ApiTimeoutError(
        `${labelOf(call.method, url)}: the deadline passed before the request was sent`,
      );
    const configured = Math.min(options.timeoutMs ?? this.config.timeoutMs, MAX_TIMER_MS);
    const timeoutMs = Math.min(configured, timeLeft);
    const request: HttpRequest = {
      method: call.method,
      url,
      headers: this.headers(
        key,
        body !== undefined,
        call.mutation && (options.respectReviewSettings ?? this.config.respectReviewSettings),
      ),
      timeoutMs,
      signal: options.signal,
    };
    if (body !== undefined) request.body = body;

    let response: HttpResponse;
    const sent = this.config.now();
    const observe = this.config.observe;
    try {
      response = await this.config.send(request);
      observe?.({
        kind: 'response',
        method: call.method,
        path: pathOf(url),
        mutation: call.mutation,
        status: response.status,
        ms: this.config.now() - sent,
      });
    } catch (error) {
      observe?.({
        kind: 'failure',
        method: call.method,
        mutation: call.mutation,
        error:
          error instanceof HttpAbortError
            ? 'abort'
            : error instanceof HttpTimeoutError
              ? 'timeout'
              : 'connection',
        ms: this.config.now() - sent,
      });
      if (error instanceof HttpAbortError)
        throw new ApiAbortError(`${labelOf(call.method, url)}: request aborted`);
      if (error instanceof HttpTimeoutError) {
        const which = timeoutMs < configured ? 'deadline' : 'timeout';
        throw new ApiTimeoutError(
          `${labelOf(call.method, url)}: no complete response within ${Math.round(timeoutMs)} ms (${which})`,
        );
      }
      const cause = this.safeCause(error);
      throw new ApiConnectionError(`${labelOf(call.method, url)}: ${cause.message}`, requestSent(error), {
        cause,
      });
    }
    const text = this.scrub(response.text);

    const status = response.status;
    if (status < 200 || status >= 300) {
      const responseHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) responseHeaders[name] = this.scrub(value);
      const init = {
        status,
        headers: responseHeaders,
        // Scrubbed again after decoding: JSON escapes can spell a key the raw text did not.
        body: scrubDeep(parseBody(text)),
        method: call.method,
        path: pathOf(url),
      };
      throw makeApiError(
        init,
        status === 429 ? parseRetryAfter(responseHeaders, this.config.now()) : undefined,
      );
    }
    return this.parse(call, url, status, text);
  }

  /**
   * Request headers. The common case (no body, no review header) reuses one object per key:
   * the sender only reads it, and building it per request showed up in the profile.
   */
  private headers(key: string, hasBody: boolean, review: boolean): Record<string, string> {
    if (!hasBody && !review) {
      if (this.plainHeaders?.key !== key) {
        this.plainHeaders = {
          key,
          headers: Object.freeze({ accept: 'application/json', 'SERVICE-API-KEY': key }),
        };
      }
      return this.plainHeaders.headers;
    }
    const headers: Record<string, string> = { accept: 'application/json', 'SERVICE-API-KEY': key };
    if (hasBody) headers['content-type'] = 'application/json';
    if (review) headers['x-respect-review-settings'] = 'true';
    return headers;
  }

  private parse<T>(call: Call<T>, url: string, status: number, text: string): T {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 120);
      throw new ResponseValidationError({
        ...where(call.method, url, status),
        detail: `body is not JSON (${excerpt || 'empty'})`,
      });
    }
    const result = call.schema.safeParse(json);
    if (!result.success) {
      const detail = formatIssues(result.error.issues.slice(0, 5));
      throw new ResponseValidationError({
        ...where(call.method, url, status),
        detail,
        issues: result.error.issues,
      });
    }
    return result.data;
  }

  /** Removes any key this transport has used (and every secret the process holds, in any encoding) from text the server sent back. */
  private scrub(text: string): string {
    let out = text;
    for (const key of this.knownKeys) {
      if (key.length >= 4 && out.includes(key)) out = out.split(key).join('[redacted]');
    }
    return scrubSecrets(out);
  }

  /** A plain copy of a connection failure (name, code, scrubbed message), one cause deep. */
  private safeCause(error: unknown, depth = 0): Error {
    const source = error instanceof Error ? error : new Error(String(error));
    const copy = new Error(this.scrub(source.message));
    copy.name = source.name;
    const code = (source as { code?: unknown }).code;
    if (typeof code === 'string') Object.assign(copy, { code });
    if (depth === 0 && source.cause !== undefined) {
      Object.defineProperty(copy, 'cause', { value: this.safeCause(source.cause, 1), enumerable: false });
      if (source.message === 'fetch failed')
        copy.message = `fetch failed: ${this.safeCause(source.cause, 1).message}`;
    }
    copy.stack = `${copy.name}: ${copy.message}`;
    return copy;
  }
}

/**
 * `METHOD /path` for messages. Built only when a message is (plain functions, not per-call
 * closures: creating closures on every request showed up in the profile).
 */
function labelOf(method: HttpMethod, url: string): string {
  return `${method} ${pathOf(url)}`;
}

function where(method: HttpMethod, url: string, status: number) {
  return { method, path: pathOf(url), status };
}

/** The path of an absolute URL, for messages (never the origin or the query). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const end = url.search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

function requestSent(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return false;
    current = (current as { cause?: unknown }).cause;
  }
  return true;
}

/** JSON when it parses, the text otherwise (HTML, plain text), undefined when empty. */
function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Default sleep: a timer that an AbortSignal cancels. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
