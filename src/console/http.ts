/**
 * The transport every resource goes through: the URL, the key, the mutation budget, each attempt
 * under its timeout (bounded by the caller's deadline), failures mapped onto the error tree and
 * the response envelope validated (answer.ts), retries. The API key lives only in an attempt's headers:
 * it is scrubbed from anything the server echoes and never stored on an error.
 */

import type { HttpRequest, HttpResponse } from '../http/send.js';
import { rememberSecret } from '../util/secret-scrub.js';
import { answeredAttempt, failedAttempt, type Sending, type Tally } from './answer.js';
import type { Call, RequestOptions, TransportConfig } from './call.js';
import {
  ApiAbortError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  ConsoleError,
  RateLimitError,
} from './errors.js';
import { KeyRing } from './key-ring.js';
import { urlOf } from './path.js';
import type { Release } from './rate-limiter.js';
import { labelOf, pathOf } from './response.js';
import { retryDelay, shouldRetry } from './retry.js';

/** setTimeout's ceiling (about 24.8 days); longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2_147_483_647;

/** Shorter than this, a token was free: the time is scheduling, not a wait for the budget. */
const BUDGET_WAIT_MIN_MS = 5;

export class Transport {
  readonly baseUrl: string;
  private readonly keys = new KeyRing();
  /** A configured string key: checked once (a bad one fails here); its forms as given and as sent. */
  private readonly fixedKey: string | undefined;
  private readonly fixedForms: string[] = [];

  constructor(private readonly config: TransportConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(this.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    if (typeof config.apiKey === 'string') this.fixedKey = this.keys.remember(config.apiKey, this.fixedForms);
  }

  /** Absolute URL of a call. */
  url(path: string, query?: Record<string, string | number | undefined>): string {
    return urlOf(this.baseUrl, path, query);
  }

  /**
   * The envelope's `data` of a call (which says `data: true`), taken in the transport: a resource
   * method returns this promise as it is, one turn of the microtask queue fewer than an async
   * method awaiting request() to read `.data`.
   */
  data<T>(call: Call<{ data: T }> & { data: true }, options?: RequestOptions): Promise<T> {
    return this.request(call, options) as Promise<unknown> as Promise<T>;
  }

  async request<T>(call: Call<T>, options: RequestOptions = {}): Promise<T> {
    const url = this.url(call.path, call.query);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    // Told again (a lookup): the process scrubber keeps only its newest secrets.
    for (const form of this.fixedForms) rememberSecret(form);
    const key = this.fixedKey ?? (await this.key(false));
    const tally: Tally = { resent: 0, rereadKey: typeof this.config.apiKey === 'function' };
    // The first attempt of a call without a budget token runs here, not in `attempt`: one await
    // (a turn of the microtask queue) fewer on every such call. Its failure goes on as one of `retrying`'s.
    if ((call.mutation && this.config.limiter) || options.signal?.aborted)
      return this.retrying(call, options, url, body, key, tally, undefined);
    let failed: ConsoleError;
    try {
      const sending = this.open(call, url, key, body, options);
      let response: HttpResponse;
      try {
        response = await sending.response;
      } catch (failure) {
        throw failedAttempt(this.config, this.keys, call, url, sending, failure, tally);
      }
      return answeredAttempt(this.config, this.keys, call, url, sending, response, tally);
    } catch (caught) {
      if (!(caught instanceof ConsoleError)) throw caught;
      failed = caught;
    }
    return this.retrying(call, options, url, body, key, tally, failed);
  }

  /** The attempts of a call from its first (or after it, when `failed` is the first's failure): retries, the key re-read. */
  private async retrying<T>(
    call: Call<T>,
    options: RequestOptions,
    url: string,
    body: string | undefined,
    first: string,
    tally: Tally,
    failed: ConsoleError | undefined,
  ): Promise<T> {
    let key = first;
    for (let retry = 0; ; ) {
      let error: ConsoleError;
      if (failed) {
        error = failed;
        failed = undefined;
      } else {
        if (options.signal?.aborted) throw new ApiAbortError('request aborted');
        try {
          const limiter = this.config.limiter;
          if (call.mutation && limiter)
            return await this.attemptWithToken(limiter, call, url, key, body, options, tally);
          return await this.attempt(call, url, key, body, options, tally);
        } catch (caught) {
          if (!(caught instanceof ConsoleError)) throw caught;
          error = caught;
        }
      }
      if (error instanceof AuthenticationError && tally.rereadKey) {
        // A rotated key: ask the provider once more and try again once (not counted as a retry).
        tally.rereadKey = false;
        key = await this.key(true);
        continue;
      }
      error.attempts = retry + 1 + tally.resent;
      error.earlierMayHaveReached = tally.unanswered === true || tally.resent > 0; // a resend may have arrived
      const delay = this.retryDelay(call, url, error, retry, options);
      if (delay === undefined) throw error;
      await this.sleep(delay, options.signal);
      tally.unanswered ||= error.leftUnanswered();
      retry++;
    }
  }

  private async attemptWithToken<T>(
    limiter: NonNullable<TransportConfig['limiter']>,
    call: Call<T>,
    url: string,
    key: string,
    body: string | undefined,
    options: RequestOptions,
    tally: Tally,
  ): Promise<T> {
    const asked = this.config.now();
    const release: Release = await limiter.acquire({ signal: options.signal, deadline: options.deadline });
    const waited = this.config.now() - asked;
    // A few ms is the scheduler handing out a free token, not a wait for the budget.
    if (waited >= BUDGET_WAIT_MIN_MS) this.config.observe?.({ kind: 'budget-wait', ms: waited });
    let rateLimited = false;
    let sent = true;
    try {
      return await this.attempt(call, url, key, body, options, tally);
    } catch (error) {
      // A 429 tells the budget that someone else spends part of the key's limits: it adapts.
      rateLimited = error instanceof RateLimitError;
      // A request that never left counted nothing on the platform: its token comes back at once.
      sent = !(
        (error instanceof ApiConnectionError || error instanceof ApiTimeoutError) &&
        !error.requestSent
      );
      throw error;
    } finally {
      await release({ rateLimited, sent });
    }
  }

  /** How long to wait before retry `retry + 1`; undefined when the error is final (retries, kind or deadline). */
  private retryDelay(
    call: Call<unknown>,
    url: string,
    error: ConsoleError,
    retry: number,
    options: RequestOptions,
  ): number | undefined {
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    if (retry >= maxRetries || !shouldRetry(error, call.retry)) return undefined;
    const now = this.config.now();
    const delay = retryDelay(error, retry, this.config.random, this.config.maxRetryDelayMs, now);
    if (delay === undefined) return undefined;
    if (options.deadline !== undefined && now + delay >= options.deadline) return undefined;
    this.config.logger?.warn('console api retry', {
      method: call.method,
      path: pathOf(url),
      retry: retry + 1,
      delayMs: delay,
      error: error.name,
      ...(error instanceof ApiError ? { status: error.status } : {}),
    });
    return delay;
  }

  private async key(afterUnauthorized: boolean): Promise<string> {
    const provider = this.config.apiKey;
    const key = typeof provider === 'string' ? provider : await provider({ afterUnauthorized });
    if (typeof key !== 'string' || key === '') throw new ConsoleError('the API key provider returned no key');
    return this.keys.remember(key);
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

  /** One attempt: sent, then its failure or response told (a mutation's holds its budget token). */
  private async attempt<T>(
    call: Call<T>,
    url: string,
    key: string,
    body: string | undefined,
    options: RequestOptions,
    tally: Tally,
  ): Promise<T> {
    const sending = this.open(call, url, key, body, options);
    let response: HttpResponse;
    try {
      response = await sending.response;
    } catch (failure) {
      throw failedAttempt(this.config, this.keys, call, url, sending, failure, tally);
    }
    return answeredAttempt(this.config, this.keys, call, url, sending, response, tally);
  }

  /** Sends an attempt under its timeout (bounded by the caller's deadline). */
  private open<T>(
    call: Call<T>,
    url: string,
    key: string,
    body: string | undefined,
    options: RequestOptions,
  ): Sending {
    const timeLeft =
      options.deadline === undefined ? Number.POSITIVE_INFINITY : options.deadline - this.config.now();
    if (timeLeft <= 0)
      throw new ApiTimeoutError(
        `${labelOf(call.method, url)}: the deadline passed before the request was sent`,
        false,
      );
    const configured = Math.min(options.timeoutMs ?? this.config.timeoutMs, MAX_TIMER_MS);
    const timeoutMs = Math.min(configured, timeLeft);
    const request: HttpRequest = {
      method: call.method,
      url,
      headers: this.keys.headers(
        key,
        body !== undefined,
        call.mutation && (options.respectReviewSettings ?? this.config.respectReviewSettings),
      ),
      timeoutMs,
      signal: options.signal,
    };
    if (body !== undefined) request.body = body;
    // A create must never arrive twice: no resend, even on a connection found closed.
    if (call.retry === 'create') request.resendOnStaleSocket = false;
    const sent = this.config.now();
    let response: Promise<HttpResponse>;
    try {
      response = this.config.send(request);
    } catch (error) {
      response = Promise.reject(error); // a sender that throws fails like one that rejects
    }
    return { request, response, sent, timeoutMs, byDeadline: timeoutMs < configured };
  }
}
