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
      const exchange = new Exchange(resolve, reject, maxBytes, request);
      const open = () => {
        let req: ClientRequest;
        try {
          const send = secure ? httpsRequest : httpRequest;
          req = send(request.url, { method: request.method, headers: request.headers, agent });
          if (!req.hasHeader('accept-encoding')) req.setHeader('accept-encoding', 'gzip, deflate, br');
          if (request.body !== undefined) req.setHeader('content-length', Buffer.byteLength(request.body));
        } catch (error) {
          exchange.fail(error); // an invalid URL or header value: nothing was sent
          return;
        }
        exchange.attach(req);
        req.end(request.body);
      };
      exchange.start(open, request.timeoutMs);
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
  private open: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private settled = false;
  private responded = false;
  private staleRetries = 0;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private readonly onAbort = () => this.fail(new HttpAbortError('request aborted'));

  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly maxBytes: number,
    private readonly request: HttpRequest,
  ) {
    this.signal = request.signal;
  }

  /** One timer and one abort listener for the whole exchange, however many connections it takes. */
  start(open: () => void, timeoutMs: number): void {
    this.open = open;
    this.timer = setTimeout(timeOut, timeoutMs, this, timeoutMs);
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    open();
  }

  /** Listens to a request just opened (before it is sent). */
  attach(req: ClientRequest): void {
    this.req = req;
    req.on('error', (error) => this.requestFailed(req, error));
    req.on('response', (res) => {
      this.responded = true;
      this.receive(res);
    });
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
  private requestFailed(req: ClientRequest, error: Error & { code?: string }): void {
    if (this.settled || req !== this.req) return;
    const staleSocket = req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
    const mayResend = this.request.resendOnStaleSocket !== false;
    if (staleSocket && mayResend && !this.responded && this.staleRetries < MAX_STALE_SOCKET_RETRIES) {
      this.staleRetries++;
      this.request.resent = this.staleRetries;
      this.open?.();
      return;
    }
    this.fail(error);
  }

  private receive(res: IncomingMessage): void {
    res.on('data', (chunk: Buffer) => {
      this.bytes += chunk.length;
      if (this.bytes > this.maxBytes) {
        this.fail(new Error(`response body larger than ${this.maxBytes} bytes`));
        return;
      }
      this.chunks.push(chunk);
    });
    res.on('error', (error) => this.fail(error));
    res.on('end', () => {
      if (this.settled) return;
      let text: string;
      try {
        text = decode(
          Buffer.concat(this.chunks, this.bytes),
          rawHeader(res, 'content-encoding'),
          this.maxBytes,
        );
      } catch (error) {
        this.fail(new Error(`cannot decode the response body: ${(error as Error).message}`));
        return;
      }
      this.finish();
      this.resolve(responseOf(res, text));
    });
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
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

function timeOut(exchange: Exchange, timeoutMs: number): void {
  exchange.fail(new HttpTimeoutError(`no complete response within ${Math.round(timeoutMs)} ms`));
}

/**
 * The body as text, decoded by its content-encoding, never past `maxBytes` decoded (a small
 * compressed body may expand enormously). zlib is loaded only when a body is encoded.
 */
function decode(body: Buffer, encoding: string | undefined, maxBytes: number): string {
  // Content codings are case-insensitive (RFC 9110 §8.4.1): `Identity` is no coding either.
  const coding = encoding?.trim().toLowerCase();
  if (!coding || coding === 'identity' || body.length === 0) return body.toString('utf8');
  const zlib = process.getBuiltinModule('node:zlib');
  const limit = { maxOutputLength: maxBytes };
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body, limit).toString('utf8');
    case 'deflate':
      // "deflate" is meant to be zlib-wrapped, but some servers send it raw.
      try {
        return zlib.inflateSync(body, limit).toString('utf8');
      } catch {
        return zlib.inflateRawSync(body, limit).toString('utf8');
      }
    case 'br':
      return zlib.brotliDecompressSync(body, limit).toString('utf8');
    default:
      throw new Error(`unsupported content-encoding ${encoding}`);
  }
}

/**
 * The response, its headers built only when read: Node builds `res.headers` lazily, and a
 * caller reading a 2xx body (the common case) never needs them (2–3 µs a request, measured
 * against the sandbox on loopback).
 */
function responseOf(res: IncomingMessage, text: string): HttpResponse {
  let headers: Record<string, string> | undefined;
  return {
    status: res.statusCode ?? 0,
    text,
    get headers() {
      headers ??= flatHeaders(res);
      return headers;
    },
  };
}

/** One header from the raw lines (case-insensitive), without building `res.headers`. */
function rawHeader(res: IncomingMessage, name: string): string | undefined {
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const line = raw[i] as string;
    if (line.length === name.length && line.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
