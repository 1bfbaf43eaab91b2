/**
 * What one attempt of the transport (http.ts) comes to: its response read (the body by the
 * call's schema, or the error its status means) or its failure told, each observed and with
 * every echo of the key scrubbed; and the shapes an attempt is carried in.
 */
import type { HttpRequest, HttpResponse } from '../http/send.js';
import { scrubDeep } from '../util/secret-scrub.js';
import type { Call, TransportConfig } from './call.js';
import { type ConsoleError, makeApiError } from './errors.js';
import type { KeyRing } from './key-ring.js';
import { labelOf, parseBody, parseResponse, pathOf, sendFailure } from './response.js';
import { parseRetryAfter } from './retry.js';

/** Across the attempts of one call: resends on a fresh connection (attempts too: src/http/send.ts); whether a 401 still gets the key re-read. */
export interface Tally {
  resent: number;
  rereadKey: boolean;
  unanswered?: boolean; // an earlier attempt may have reached the platform unanswered (`leftUnanswered`)
}

/** One attempt on its way: the request, its response to come, and what its failure is told with. */
export interface Sending {
  request: HttpRequest;
  response: Promise<HttpResponse>;
  sent: number;
  timeoutMs: number;
  byDeadline: boolean;
}

/** A send that got no response, as the error the caller gets (observed). */
export function failedAttempt<T>(
  config: TransportConfig,
  keys: KeyRing,
  call: Call<T>,
  url: string,
  sending: Sending,
  error: unknown,
  tally: Tally,
): ConsoleError {
  if (sending.request.resent) tally.resent += sending.request.resent;
  // `sending` holds the attempt's limit (timeoutMs, byDeadline) the failure is told with.
  const failed = sendFailure(error, labelOf(call.method, url), sending, (text) => keys.scrub(text));
  config.observe?.({
    kind: 'failure',
    method: call.method,
    mutation: call.mutation,
    error: failed.kind,
    ms: config.now() - sending.sent,
  });
  return failed.error;
}

/** The response, observed: its body read by the call's schema, or the error its status means. */
export function answeredAttempt<T>(
  config: TransportConfig,
  keys: KeyRing,
  call: Call<T>,
  url: string,
  sending: Sending,
  response: HttpResponse,
  tally: Tally,
): T {
  if (sending.request.resent) tally.resent += sending.request.resent;
  const status = response.status;
  config.observe?.({
    kind: 'response',
    method: call.method,
    path: pathOf(url),
    mutation: call.mutation,
    status,
    ...(status === 401 && tally.rereadKey ? { keyReread: true } : {}),
    ms: config.now() - sending.sent,
  });
  const text = keys.scrub(response.text);
  if (status < 200 || status >= 300) {
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) responseHeaders[name] = keys.scrub(value);
    const init = {
      status,
      headers: responseHeaders,
      // Scrubbed again after decoding: JSON escapes can spell a key the raw text did not.
      body: scrubDeep(parseBody(text)),
      method: call.method,
      path: pathOf(url),
    };
    throw makeApiError(init, status === 429 ? parseRetryAfter(responseHeaders, config.now()) : undefined);
  }
  // The content-type only for a body that is not JSON (headers are built lazily), scrubbed like the body.
  const read = parseResponse(call, url, status, text, () => {
    const type = response.headers['content-type'];
    return type === undefined ? undefined : keys.scrub(type);
  });
  return call.data ? (read as { data: T }).data : read;
}
