/**
 * Reading what came back from one attempt: the response body against the call's schema,
 * connection failures copied without secrets, the small helpers messages are built with, and
 * the default sleep between retries.
 */

import { HttpAbortError, HttpTimeoutError } from '../http/errors.js';
import { formatIssues } from '../util/zod-issues.js';
import type { Call, HttpMethod } from './call.js';
import {
  ApiAbortError,
  ApiConnectionError,
  ApiTimeoutError,
  type ConsoleError,
  ResponseValidationError,
} from './errors.js';
import { fastCheckOf } from './fast-check.js';

/** Connection failures that happen before any byte of the request is sent. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The response body as `call.schema` reads it. A body that is not JSON at all (a proxy's login
 * page, an empty body) and JSON that does not match the schema are both a ResponseValidationError,
 * told apart by `kind`: only the second is an answer of the platform's (src/worker/execute.ts).
 * `contentType` is read only then (building the headers costs on every response).
 */
export function parseResponse<T>(
  call: Call<T>,
  url: string,
  status: number,
  text: string,
  contentType: () => string | undefined = () => undefined,
): T {
  let json: unknown;
  try {
    json = JSON.parse(withoutBom(text));
  } catch {
    // Never the body's text: a page's words (a proxy's, a web app's) are no diagnosis of ours
    // and could carry anything into logs and Slack; its type and size say what it was.
    const type = printable(contentType()) || 'none';
    throw new ResponseValidationError({
      ...where(call.method, url, status),
      kind: 'not-json',
      contentType: type,
      detail: `the answer (status ${status}, content-type ${type}, ${Buffer.byteLength(text)} bytes) is not JSON`,
    });
  }
  // A value zod would accept unchanged is kept as parsed; anything else is zod's to read (fast-check.ts).
  if (fastCheckOf(call.schema)?.(json)) return json as T;
  const result = call.schema.safeParse(json);
  if (!result.success) {
    const detail = formatIssues(result.error.issues.slice(0, 5));
    throw new ResponseValidationError({
      ...where(call.method, url, status),
      kind: 'schema',
      detail,
      issues: result.error.issues,
    });
  }
  return result.data;
}

/**
 * What a send that got no response becomes: the caller's abort, the attempt's timeout, the
 * caller's deadline (when that cut it shorter: our time ran out, not the platform's patience),
 * or a connection error (a scrubbed copy of the cause, and whether any byte of the request left).
 * `label` is `METHOD /path`.
 */
export function sendFailure(
  error: unknown,
  label: string,
  limit: { timeoutMs: number; byDeadline: boolean },
  scrub: (text: string) => string,
): { kind: 'abort' | 'timeout' | 'deadline' | 'connection'; error: ConsoleError } {
  if (error instanceof HttpAbortError)
    return { kind: 'abort', error: new ApiAbortError(`${label}: request aborted`) };
  if (error instanceof HttpTimeoutError) {
    const which = limit.byDeadline ? 'deadline' : 'timeout';
    const message = `${label}: no complete response within ${Math.round(limit.timeoutMs)} ms (${which})`;
    return { kind: limit.byDeadline ? 'deadline' : 'timeout', error: new ApiTimeoutError(message) };
  }
  const cause = safeCause(error, scrub);
  const failure = new ApiConnectionError(`${label}: ${cause.message}`, requestSent(error), { cause });
  return { kind: 'connection', error: failure };
}

/** A plain copy of a connection failure (name, code, scrubbed message), one cause deep. */
export function safeCause(error: unknown, scrub: (text: string) => string, depth = 0): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(scrub(source.message));
  copy.name = source.name;
  const code = (source as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  if (depth === 0 && source.cause !== undefined) {
    Object.defineProperty(copy, 'cause', { value: safeCause(source.cause, scrub, 1), enumerable: false });
    if (source.message === 'fetch failed')
      copy.message = `fetch failed: ${safeCause(source.cause, scrub, 1).message}`;
  }
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

/**
 * `METHOD /path` for messages. Built only when a message is (plain functions, not per-call
 * closures: creating closures on every request showed up in the profile).
 */
export function labelOf(method: HttpMethod, url: string): string {
  return `${method} ${pathOf(url)}`;
}

export function where(method: HttpMethod, url: string, status: number) {
  return { method, path: pathOf(url), status };
}

/** The path of an absolute URL, for messages (never the origin or the query). */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const end = url.search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

export function requestSent(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return false;
    current = (current as { cause?: unknown }).cause;
  }
  return true;
}

/**
 * The text without one leading UTF-8 byte order mark: RFC 8259 §8.1 lets a parser ignore it, and
 * `JSON.parse` refuses it (node:http's and a streamed fetch body's decoding keep it).
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A header value for messages: printable ASCII only (no line breaks, no escapes), 100 characters at most. */
function printable(value: string | undefined): string {
  return (value ?? '')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, 100);
}

/** JSON when it parses, the text otherwise (HTML, plain text), undefined when empty. */
export function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(withoutBom(text));
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
