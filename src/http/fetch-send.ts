/**
 * An `HttpSend` over a `fetch` function, for callers that bring their own (a proxy-aware
 * fetch, a test double). It keeps the contract of `createNodeSend`: the timeout covers the
 * whole exchange, redirects are not followed, a body (decoded) has a size cap, and a failure
 * is a timeout, an abort or the fetch error itself (whose `cause` carries the connection error
 * code).
 */

import { HttpAbortError, HttpTimeoutError } from './errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, type HttpResponse, type HttpSend } from './send.js';

/** The abort reason of our timer, told apart from the caller's abort. */
const TIMED_OUT = new Error('timed out');

/**
 * The body as text, refused past `maxBytes` as it arrives (fetch decodes gzip and br itself, so
 * a small compressed body could expand enormously). A plain body whose declared length is within
 * the cap is read in one go: HTTP framing ends it there.
 */
async function readBody(response: Response, maxBytes: number): Promise<string> {
  const encoding = response.headers.get('content-encoding');
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if ((!encoding || encoding === 'identity') && declared <= maxBytes) return response.text();
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`response body larger than ${maxBytes} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

export function fetchSend(fetchImpl: typeof fetch, maxBytes = DEFAULT_MAX_RESPONSE_BYTES): HttpSend {
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
      const text = await readBody(response, maxBytes);
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
