/**
 * One error tree for the Console API client. Callers branch on the class (or on
 * `isTransientError`), never on message text. Nothing here ever holds the API key or the
 * request headers: only the response's status, headers and (already scrubbed) body.
 */

import type * as z from 'zod/mini';
import { scrubSecrets } from '../util/secret-scrub.js';
import { formatPath } from '../util/zod-issues.js';
import { apiErrorMessage, boundBody, type FieldError, fieldErrors, platformSaid } from './error-text.js';

export type { FieldError } from './error-text.js';

/** Base of every error the client throws. */
export class ConsoleError extends Error {
  override name = 'ConsoleError';
  /**
   * How many attempts the call made before this error was final (set by the transport). More
   * than one means an earlier attempt may have reached the platform without an answer.
   */
  attempts?: number;
  /**
   * Whether an attempt before the last one may have reached the platform without an answer (set by
   * the transport): false when each was answered with a refusal that did nothing (a 429) or failed
   * before it was sent. More attempts alone do not say so: a 429 then a 409 changed nothing of ours.
   */
  earlierMayHaveReached?: boolean;

  /** Whether the attempt that failed so may have made a change without an answer (overridden below). */
  leftUnanswered(): boolean {
    return true;
  }

  /** Plain fields for JSON logs; the stack stays out. */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, message: this.message };
  }
}

export interface ApiErrorInit {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  method: string;
  path: string;
}

/** The server answered with a non-2xx status. */
export class ApiError extends ConsoleError {
  override name = 'ApiError';
  readonly status: number;
  /** Response headers (never the request's). */
  readonly headers: Record<string, string>;
  readonly requestId: string | undefined;
  /**
   * Parsed JSON body, the raw text when it was not JSON, or undefined when empty: bounded
   * (src/console/error-text.ts), as is everything below that is read from it.
   */
  readonly body: unknown;
  readonly errors: FieldError[] | undefined;
  /** What the platform said (its `message` and `errors[]`, at most 2,000 characters), if anything. */
  readonly said: string | undefined;
  readonly method: string;
  readonly path: string;

  constructor(init: ApiErrorInit, options?: { cause?: unknown }) {
    // The platform's words bounded here, once, before anything reads them: they go on into
    // audit records, finals, replies and log lines, each with a size limit of its own.
    const body = boundBody(init.body);
    const errors = fieldErrors(body);
    // Scrubbed once more as a whole: parts of a secret in `message` and `errors[]` may join here.
    super(
      scrubSecrets(apiErrorMessage(`${init.method} ${init.path}: ${init.status}`, body, errors)),
      options,
    );
    this.status = init.status;
    this.headers = init.headers;
    this.requestId = init.headers['x-request-id'] ?? init.headers['request-id'];
    this.body = body;
    this.errors = errors;
    const said = platformSaid(body, errors);
    this.said = said === undefined ? undefined : scrubSecrets(said);
    this.method = init.method;
    this.path = init.path;
  }
}

export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  /** From `Retry-After` (seconds or HTTP date), when the server sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit, retryAfterMs: number | undefined, options?: { cause?: unknown }) {
    super(init, options);
    this.retryAfterMs = retryAfterMs;
  }

  /** A 429 is the platform's answer that it did nothing. */
  override leftUnanswered(): boolean {
    return false;
  }
}
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}

/** The request did not complete: DNS, refused or reset connection, a body that broke off. */
export class ApiConnectionError extends ConsoleError {
  override name = 'ApiConnectionError';
  /**
   * False when the failure happened before any byte of the request left (refused connection,
   * unknown host): even a creating POST can then be retried safely.
   */
  readonly requestSent: boolean;

  constructor(message: string, requestSent: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.requestSent = requestSent;
  }

  /** Only a request that left may have made a change. */
  override leftUnanswered(): boolean {
    return this.requestSent;
  }
}

/** An attempt's timeout or the caller's deadline passed. */
export class ApiTimeoutError extends ConsoleError {
  override name = 'ApiTimeoutError';
  /**
   * False when the time ran out before the request was sent (waiting for the mutation budget,
   * or a deadline already past): the platform never saw it. True when an attempt was on its way.
   */
  readonly requestSent: boolean;

  constructor(message: string, requestSent = true, options?: { cause?: unknown }) {
    super(message, options);
    this.requestSent = requestSent;
  }

  /** Only a request that left may have made a change. */
  override leftUnanswered(): boolean {
    return this.requestSent;
  }
}

/** The caller's AbortSignal fired. Never retried. */
export class ApiAbortError extends ConsoleError {
  override name = 'ApiAbortError';
}

/** A request body or parameter failed its schema: no network call was made. */
export class RequestValidationError extends ConsoleError {
  override name = 'RequestValidationError';
  /** Zod paths of the offending fields, e.g. `['permissions', 'create_configs']`. */
  readonly issues: Array<{ path: PropertyKey[]; message: string }>;

  constructor(operation: string, issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>) {
    super(
      `${operation}: invalid request: ${issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; ')}`,
    );
    this.issues = issues.map((issue) => ({ path: [...issue.path], message: issue.message }));
  }

  /** The first failing path in `a.b[0]` form. */
  get path(): string {
    return formatPath(this.issues[0]?.path ?? []);
  }
}

/**
 * A 2xx response that was not JSON or did not match the schema, told apart by `kind`:
 * `schema` is JSON of another shape, an answer the platform gave; `not-json` (HTML, an empty
 * body, broken JSON) may be no answer of the platform's at all (a proxy's login or "blocked"
 * page, a base URL pointing at a web app), so it says nothing of whether the call was carried out.
 */
export class ResponseValidationError extends ConsoleError {
  override name = 'ResponseValidationError';
  readonly kind: 'not-json' | 'schema';
  readonly issues: Array<{ path: PropertyKey[]; message: string }>;
  readonly status: number;
  readonly method: string;
  readonly path: string;
  /** The answer's content-type (printable, cut short) when it was not JSON; never its body. */
  readonly contentType: string | undefined;

  constructor(
    init: {
      method: string;
      path: string;
      status: number;
      detail: string;
      kind?: 'not-json' | 'schema';
      contentType?: string;
      issues?: z.core.$ZodIssue[];
    },
    options?: { cause?: unknown },
  ) {
    super(`${init.method} ${init.path}: unexpected response: ${init.detail}`, options);
    this.kind = init.kind ?? 'schema';
    this.issues = (init.issues ?? []).map((issue) => ({ path: [...issue.path], message: issue.message }));
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.contentType = init.contentType;
  }
}

/** Auto-pagination refused to follow a link (another origin). */
export class PaginationError extends ConsoleError {
  override name = 'PaginationError';
}

/** Picks the subclass by status. */
export function makeApiError(init: ApiErrorInit, retryAfterMs?: number): ApiError {
  switch (init.status) {
    case 400:
      return new BadRequestError(init);
    case 401:
      return new AuthenticationError(init);
    case 403:
      return new PermissionDeniedError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 422:
      return new UnprocessableEntityError(init);
    case 429:
      return new RateLimitError(init, retryAfterMs);
    default:
      return init.status >= 500 ? new InternalServerError(init) : new ApiError(init);
  }
}

/**
 * True for failures worth retrying: connection, timeout, 408, 429 and 5xx.
 *
 * @example
 * try { await client.releasePipelineTriggers.approve(id, { phaseID }); }
 * catch (err) { if (isTransientError(err)) throw err; else recordPermanentFailure(err); }
 */
export function isTransientError(err: unknown): boolean {
  if (err instanceof ApiConnectionError || err instanceof ApiTimeoutError) return true;
  if (err instanceof ApiError) return err.status === 408 || err.status === 429 || err.status >= 500;
  return false;
}
