/**
 * Outbound HTTP for everything we call ourselves (the Console API, Slack), on `node:http(s)`
 * with keep-alive agents rather than the global `fetch`. Two measured reasons (Node 20; see
 * README "Console API client" and `npm run bench`):
 * - the first `fetch` of a process loads undici, while `node:http(s)` is already loaded by the
 *   AWS SDK that every handler bundles: a cold process's first request took 55–62 ms by fetch,
 *   25–30 ms here;
 * - per request, fetch costs more, and its timeout needs an AbortSignal, which itself costs
 *   tens of µs; here a timer destroys the request instead.
 * What fetch did for us is done here too: gzip/deflate/br bodies are decoded, a body has a
 * size cap, redirects are never followed (a 3xx is just a status), and every failure is one
 * of three kinds: timed out, aborted by the caller, or a connection error with its code.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { HttpAbortError, HttpTimeoutError } from './errors.js';
import { decode, LazyHeadersResponse, rawHeader } from './received.js';
import { targetOf } from './target.js';

export interface HttpRequest {
  method: string;
  /** Absolute http(s) URL. */
  url: string;
  headers: Readonly<Record<string, string>>;
  body?: string;
  /** The whole exchange, from sending to the last byte of the body. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /**
   * Send again on a fresh connection when a reused one turns out closed (below). Default true;
   * false for a request that must never reach the server twice (a create): a reset can also
   * come after the server read it.
   */
  resendOnStaleSocket?: boolean;
  /** Set by the sender: how often it sent the request again on a fresh connection. */
  resent?: number;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The decoded body as UTF-8 text. */
  text: string;
}

/** Sends one request; never retries, never follows redirects. */
export type HttpSend = (request: HttpRequest) => Promise<HttpResponse>;

/** How many reused connections found closed one exchange may skip (each is destroyed on the way). */
const MAX_STALE_SOCKET_RETRIES = 3;

/** Bodies larger than this are refused (our peers send pages of JSON, not files). */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface NodeSendOptions {
  /** Concurrent sockets per origin. Default 50. */
  maxSockets?: number;
  maxResponseBytes?: number;
}

/**
 * A sender with its own keep-alive agents (idle sockets are unref'd by Node, so they never
 * hold a process open). `lifo` reuses the most recently used socket: the one least likely to
 * have been closed by the server's idle timeout.
 */
export function createNodeSend(options: NodeSendOptions = {}): HttpSend {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 50, scheduling: 'lifo' as const };
  let http: HttpAgent | undefined;
  let https: HttpsAgent | undefined;
  const agentFor = (secure: boolean) => {
    if (secure) {
      https ??= new HttpsAgent(agentOptions);
      return https;
    }
    http ??= new HttpAgent(agentOptions);
    return http;
  };
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  return (request) => {
    const secure = (request.url.charCodeAt(4) | 32) === 115; /* 's' or 'S' of https: */
    const agent = agentFor(secure);
    return new Promise<HttpResponse>((resolve, reject) => {
      if (request.signal?.aborted) return reject(new HttpAbortError('aborted before sending'));
      new Exchange(resolve, reject, maxBytes, request, secure, agent).start(request.timeoutMs);
    });
  };
}

/**
 * One request in flight: settles its promise exactly once, whichever comes first of the
 * response's end, an error, the timer or the caller's abort, and then tears everything down.
 * (A class rather than closures: this runs on every request and closures showed in profiles.)
 */
class Exchange {
  private req: ClientRequest | undefined;
  private timer: NodeJS.Timeout | undefined;
  private settled = false;
  private responded = false;
  private staleRetries = 0;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  /** Built only when the caller gave a signal. */
  private onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly maxBytes: number,
    private readonly request: HttpRequest,
    private readonly secure: boolean,
    private readonly agent: HttpAgent | HttpsAgent,
  ) {}

  /** One timer and one abort listener for the whole exchange, however many connections it takes. */
  start(timeoutMs: number): void {
    this.timer = setTimeout(timeOut, timeoutMs, this, timeoutMs);
    const signal = this.request.signal;
    if (signal) {
      this.onAbort = () => this.fail(new HttpAbortError('request aborted'));
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    this.open();
  }

  /** Sends the request on a connection of the agent (again, after a closed one: requestFailed). */
  private open(): void {
    const request = this.request;
    let req: ClientRequest;
    try {
      const send = this.secure ? httpsRequest : httpRequest;
      // The URL's options made here when its origin was seen before (target.ts), or by node:http.
      const target = targetOf(request.url, request.method, request.headers, this.agent);
      req = target
        ? send(target)
        : send(request.url, { method: request.method, headers: request.headers, agent: this.agent });
      if (!req.hasHeader('accept-encoding')) req.setHeader('accept-encoding', 'gzip, deflate, br');
      if (request.body !== undefined) req.setHeader('content-length', Buffer.byteLength(request.body));
    } catch (error) {
      this.fail(error); // an invalid URL or header value: nothing was sent
      return;
    }
    this.req = req;
    // Listeners are module functions finding this exchange on the request (no closures per request).
    (req as Tagged<ClientRequest>)[EXCHANGE] = this;
    req.on('error', onRequestError);
    req.on('response', onResponse);
    req.end(request.body);
  }

  /**
   * A server may close an idle keep-alive connection just as we reuse it (after a Lambda thaw,
   * typically): the request then fails with ECONNRESET or EPIPE on a reused socket before any
   * response. Usually the server closed it as idle and never read the request, and Node's
   * documentation advises sending it again, which we do on another connection (a few times at
   * most: each dead socket is destroyed on the way). But a reset can also come after the server
   * read it: a request that must not arrive twice is not sent again, and every resend is told
   * to the caller (`resent`), who counts it as an attempt. Any other failure is final.
   */
  requestFailed(req: ClientRequest, error: Error & { code?: string }): void {
    if (this.settled || req !== this.req) return;
    const staleSocket = req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
    const mayResend = this.request.resendOnStaleSocket !== false;
    if (staleSocket && mayResend && !this.responded && this.staleRetries < MAX_STALE_SOCKET_RETRIES) {
      this.staleRetries++;
      this.request.resent = this.staleRetries;
      this.open();
      return;
    }
    this.fail(error);
  }

  receive(res: IncomingMessage): void {
    this.responded = true;
    (res as Tagged<IncomingMessage>)[EXCHANGE] = this;
    res.on('data', onData);
    res.on('error', onResponseError);
    res.on('end', onEnd);
  }

  data(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.fail(new Error(`response body larger than ${this.maxBytes} bytes`));
      return;
    }
    this.chunks.push(chunk);
  }

  end(res: IncomingMessage): void {
    if (this.settled) return;
    let text: string;
    try {
      // One chunk (a small body, the common case) is decoded as it came, without a copy.
      const body =
        this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.bytes);
      text = decode(body, rawHeader(res, 'content-encoding'), this.maxBytes);
    } catch (error) {
      this.fail(new Error(`cannot decode the response body: ${(error as Error).message}`));
      return;
    }
    this.finish();
    this.resolve(new LazyHeadersResponse(res, text));
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.finish();
    this.req?.destroy();
    this.reject(error);
  }

  private finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
    if (this.onAbort) this.request.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** The exchange a request or response belongs to, for the module-level listeners below. */
const EXCHANGE = Symbol('exchange');
type Tagged<T> = T & { [EXCHANGE]: Exchange };

function onRequestError(this: ClientRequest, error: Error & { code?: string }): void {
  (this as Tagged<ClientRequest>)[EXCHANGE].requestFailed(this, error);
}
function onResponse(this: ClientRequest, res: IncomingMessage): void {
  (this as Tagged<ClientRequest>)[EXCHANGE].receive(res);
}
function onData(this: IncomingMessage, chunk: Buffer): void {
  (this as Tagged<IncomingMessage>)[EXCHANGE].data(chunk);
}
function onResponseError(this: IncomingMessage, error: Error): void {
  (this as Tagged<IncomingMessage>)[EXCHANGE].fail(error);
}
function onEnd(this: IncomingMessage): void {
  (this as Tagged<IncomingMessage>)[EXCHANGE].end(this);
}

function timeOut(exchange: Exchange, timeoutMs: number): void {
  exchange.fail(new HttpTimeoutError(`no complete response within ${Math.round(timeoutMs)} ms`));
}
