/**
 * The Request the Lambda adapter (lambda-adapter.ts) hands the app, made from the event without
 * undici's Request on every call, and the method check a Request makes.
 */
import type { EventHeaders } from './event-headers.js';
import { BODY_MEMBERS, readFromReal } from './real-on-use.js';

/**
 * The members of a Request that are not the event's own (`url`, `method`, `headers`): a fixed list,
 * not read off `Request.prototype`, for reading the global `Request` loads undici (event-headers.ts
 * says why that matters).
 */
const REQUEST_MEMBERS = [
  ...BODY_MEMBERS,
  'bodyUsed',
  'cache',
  'credentials',
  'destination',
  'duplex',
  'integrity',
  'isHistoryNavigation',
  'isReloadNavigation',
  'keepalive',
  'mode',
  'redirect',
  'referrer',
  'referrerPolicy',
  'signal',
];
/** The real Request's maker: a symbol, so the object shows no member a Request lacks. */
const REAL = Symbol('the real Request');
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The Request the app gets. `url` (parsed and normalized as a Request's), `method` and `headers`
 * are its own: Hono routes on them and the webhook reads the headers, its body coming from
 * `lambdaBody`. Anything else (`body`, `text()`, `signal`, `clone()`…) is a real Request's, made
 * with the event's parts on first use, so the object behaves as one throughout; it is not one to
 * `instanceof Request` (that would read the global). Not making the real one on every request
 * saved ~20 µs at p50 (Node 20.20, the benchmark's mutation with the in-memory queue stand-in:
 * 0.096 → 0.075 ms; undici's Request makes an AbortSignal and, with a body, a stream), and the
 * webhook's first request after a cold start no longer loads undici at all.
 */
class EventRequest {
  readonly #url: string;
  readonly #method: string;
  readonly #headers: EventHeaders;
  readonly #bytes: Uint8Array;
  #real: Request | undefined;
  constructor(url: string, method: string, headers: EventHeaders, bytes: Uint8Array) {
    this.#url = url;
    this.#method = method;
    this.#headers = headers;
    this.#bytes = bytes;
  }
  get url(): string {
    return this.#url;
  }
  get method(): string {
    return this.#method;
  }
  /** A Headers to everything that reads it (event-headers.ts). */
  get headers(): Headers {
    return this.#headers as unknown as Headers;
  }
  get [Symbol.toStringTag](): string {
    return 'Request';
  }
  /** The real Request, made once, on the first use of a member that is not the event's own. */
  [REAL](): Request {
    const body = this.#bytes.byteLength > 0 ? (this.#bytes as BodyInit) : null;
    this.#real ??= new Request(this.#url, { method: this.#method, headers: [...this.#headers], body });
    return this.#real;
  }
}

readFromReal(EventRequest.prototype, REQUEST_MEMBERS, (request) => request[REAL]());

/** As a Request checks and normalizes it; a TypeError (400, as `handle` answered) when it would refuse it. */
export function methodOf(method: string, hasBody: boolean): string {
  if (!METHOD_TOKEN.test(method)) throw new TypeError(`"${method}" is not a valid HTTP method`);
  const upper = method.toUpperCase();
  if (FORBIDDEN_METHODS.has(upper)) throw new TypeError(`"${method}" HTTP method is unsupported`);
  const normalized = NORMALIZED_METHODS.has(upper) ? upper : method;
  if (hasBody && (normalized === 'GET' || normalized === 'HEAD'))
    throw new TypeError('Request with GET/HEAD method cannot have body');
  return normalized;
}

/** A Request for the event's URL, method, headers and body (see `EventRequest`). */
export function eventRequest(url: string, method: string, headers: EventHeaders, body: Uint8Array): Request {
  return new EventRequest(url, method, headers, body) as unknown as Request;
}
