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
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpRequest {
  method: string;
  /** Absolute http(s) URL. */
  url: string;
  headers: Readonly<Record<string, string>>;
  body?: string;
  /** The whole exchange, from sending to the last byte of the body. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
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

/** No complete response within `timeoutMs`; the request was destroyed. */
export class HttpTimeoutError extends Error {
  override name = 'HttpTimeoutError';
}

/** The caller's signal aborted the request. */
export class HttpAbortError extends Error {
  override name = 'HttpAbortError';
}

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
      const exchange = new Exchange(resolve, reject, maxBytes, request.signal);
      let req: ReturnType<typeof httpRequest>;
      try {
        const send = secure ? httpsRequest : httpRequest;
        req = send(request.url, { method: request.method, headers: request.headers, agent });
        if (!req.hasHeader('accept-encoding')) req.setHeader('accept-encoding', 'gzip, deflate, br');
        if (request.body !== undefined) req.setHeader('content-length', Buffer.byteLength(request.body));
      } catch (error) {
        return reject(error); // an invalid URL or header value: nothing was sent
      }
      exchange.start(req, request.timeoutMs);
      req.end(request.body);
    });
  };
}

/**
 * One request in flight: settles its promise exactly once, whichever comes first of the
 * response's end, an error, the timer or the caller's abort, and then tears everything down.
 * (A class rather than closures: this runs on every request and closures showed in profiles.)
 */
class Exchange {
  private req: ReturnType<typeof httpRequest> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private settled = false;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private readonly onAbort = () => this.fail(new HttpAbortError('request aborted'));

  constructor(
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly maxBytes: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  start(req: ReturnType<typeof httpRequest>, timeoutMs: number): void {
    this.req = req;
    this.timer = setTimeout(timeOut, timeoutMs, this, timeoutMs);
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    req.on('error', (error) => this.fail(error));
    req.on('response', (res) => this.receive(res));
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
        text = decode(Buffer.concat(this.chunks, this.bytes), res.headers['content-encoding'], this.maxBytes);
      } catch (error) {
        this.fail(new Error(`cannot decode the response body: ${(error as Error).message}`));
        return;
      }
      this.finish();
      this.resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res), text });
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
  if (!encoding || encoding === 'identity' || body.length === 0) return body.toString('utf8');
  const zlib = process.getBuiltinModule('node:zlib');
  const limit = { maxOutputLength: maxBytes };
  switch (encoding.trim().toLowerCase()) {
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

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
