/**
 * What came back to the node:http sender (send.ts): the body decoded by its content-encoding,
 * within the size cap, and the response whose headers are built only if read.
 */
import type { IncomingMessage } from 'node:http';
import type { HttpResponse } from './send.js';

/**
 * The body as text, decoded by its content-encoding, never past `maxBytes` decoded (a small
 * compressed body may expand enormously). zlib is loaded only when a body is encoded.
 */
export function decode(body: Buffer, encoding: string | undefined, maxBytes: number): string {
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
 * against the sandbox on loopback). A class: its getter is on the prototype, not built per response.
 */
export class LazyHeadersResponse implements HttpResponse {
  readonly status: number;
  readonly #res: IncomingMessage;
  #headers: Record<string, string> | undefined;

  constructor(
    res: IncomingMessage,
    readonly text: string,
  ) {
    this.status = res.statusCode ?? 0;
    this.#res = res;
  }

  get headers(): Record<string, string> {
    this.#headers ??= flatHeaders(this.#res);
    return this.#headers;
  }
}

/** One header from the raw lines (case-insensitive), without building `res.headers`. */
export function rawHeader(res: IncomingMessage, name: string): string | undefined {
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
