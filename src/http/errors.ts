/** How a request can fail without a response: the transport's errors (statuses are the caller's to judge). */

/** No complete response within `timeoutMs`; the request was destroyed. */
export class HttpTimeoutError extends Error {
  override name = 'HttpTimeoutError';
}

/** The caller's signal aborted the request. */
export class HttpAbortError extends Error {
  override name = 'HttpAbortError';
}
