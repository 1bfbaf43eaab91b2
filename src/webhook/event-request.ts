/**
 * The Request the Lambda adapter (lambda-adapter.ts) hands the app, made from the event without
 * undici's Request on every call, and the method check a Request makes.
 */

/** Request's members that are the event's own; the rest are a real Request's (`EventRequest`). */
const OWN = new Set(['constructor', 'url', 'method', 'headers']);
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The Request the app gets. `url` (parsed and normalized as a Request's), `method` and `headers`
 * are its own: Hono routes on them and the webhook reads the headers, its body coming from
 * `lambdaBody`. Anything else (`body`, `text()`, `signal`, `clone()`…) is a real Request's, made
 * with the event's body on first use, so the object behaves as one throughout and is one to
 * `instanceof`. Not making the real one on every request saved ~20 µs at p50 (Node 20.20, the
 * benchmark's mutation with the in-memory queue stand-in: 0.096 → 0.075 ms; undici's Request
 * makes an AbortSignal and, with a body, a stream).
 */
class EventRequest {
  readonly #url: string;
  readonly #method: string;
  readonly #headers: Headers;
  readonly #bytes: Uint8Array;
  #real: Request | undefined;
  static linked = false;
  constructor(url: string, method: string, headers: Headers, bytes: Uint8Array) {
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
  get headers(): Headers {
    return this.#headers;
  }
  /** The real Request, made once, on the first use of a member that is not the event's own. */
  #realRequest(): Request {
    const body = this.#bytes.byteLength > 0 ? (this.#bytes as BodyInit) : null;
    this.#real ??= new Request(this.#url, { method: this.#method, headers: this.#headers, body });
    return this.#real;
  }

  /**
   * Makes `EventRequest` a Request: its prototype chain, and every member that is not the event's
   * own read from a real Request. Done on the first request, not at import: on Node the global
   * `Request` is a lazy getter that loads undici, about 14 ms of a cold start's init
   * (`npm run bench -- cold-start`, webhook: cold init); the first request loads it anyway.
   */
  static linkToRequest(): void {
    EventRequest.linked = true;
    Object.setPrototypeOf(EventRequest.prototype, Request.prototype);
    for (const name of Object.getOwnPropertyNames(Request.prototype)) {
      if (OWN.has(name)) continue;
      Object.defineProperty(EventRequest.prototype, name, {
        configurable: true,
        get(this: EventRequest) {
          const real = this.#realRequest();
          const value: unknown = Reflect.get(real, name, real);
          return typeof value === 'function' ? value.bind(real) : value;
        },
      });
    }
  }
}

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
export function eventRequest(url: string, method: string, headers: Headers, body: Uint8Array): Request {
  if (!EventRequest.linked) EventRequest.linkToRequest();
  return new EventRequest(url, method, headers, body) as unknown as Request;
}
