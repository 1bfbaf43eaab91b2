/**
 * An `HttpSend` over a `fetch` function, for callers that bring their own (a proxy-aware
 * fetch, a test double). It keeps the contract of `createNodeSend`: the timeout covers the
 * whole exchange, redirects are not followed, and a failure is a timeout, an abort or the
 * fetch error itself (whose `cause` carries the connection error code).
 */

import { HttpAbortError, HttpTimeoutError } from './errors.js';
import type { HttpResponse, HttpSend } from './send.js';

/** The abort reason of our timer, told apart from the caller's abort. */
const TIMED_OUT = new Error('timed out');

export function fetchSend(fetchImpl: typeof fetch): HttpSend {
  return async (request) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMED_OUT), request.timeoutMs);
    const callerSignal = request.signal;
    const onAbort = () => controller.abort();
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    if (callerSignal?.aborted) controller.abort();
    try {
      const init: RequestInit = {
        method: request.method,
        headers: request.headers,
        redirect: 'manual',
        signal: controller.signal,
      };
      if (request.body !== undefined) init.body = request.body;
      const response = await fetchImpl(request.url, init);
      const text = await response.text();
      const headers: HttpResponse['headers'] = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { status: response.status, headers, text };
    } catch (error) {
      if (callerSignal?.aborted) throw new HttpAbortError('request aborted');
      if (controller.signal.reason === TIMED_OUT) {
        throw new HttpTimeoutError(`no complete response within ${Math.round(request.timeoutMs)} ms`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    }
  };
}
