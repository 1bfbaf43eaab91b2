/**
 * The webhook's Lambda adapter: an API Gateway HTTP API (payload 2.0), REST API (1.0) or Function
 * URL (2.0) event in, the Hono app's answer out as the result Lambda returns. It does what
 * hono/aws-lambda's `handle` did for us (same URL, method, headers, `c.env` bindings, status,
 * response headers and base64 rule) without its two stream round trips: the event's body is
 * already in memory, so it reaches the app beside the Request (`c.env`, read by
 * `readBodyLimited`) instead of being streamed through it, and a reply whose text the app wrote
 * (`textReply`, a LambdaReply: lambda-reply.ts) is returned as that text instead of being read
 * back out of a Response's stream. The Request itself is made only if something asks for more
 * than its URL, method and headers (event-request.ts); the webhook never does. Neither side uses
 * Node's global Headers, Request or Response, whose first use loads undici: ~20 ms of a cold
 * start's first request (event-headers.ts; test/infra/webhook-without-undici.test.ts).
 *
 * Ours only for the figure (Node 20.20, the benchmark's bundle, bench/webhook.bench.ts): a Request
 * with a body costs 27 µs against 7 µs without, a Response with a string body 12.5 µs against
 * 1 µs without, before either stream is read back (more µs and microtask hops). A queued mutation
 * with the in-memory queue stand-in went from 0.155 ms at p50 behind `handle` to 0.096 ms behind
 * this adapter, 0.075 ms with the event request; with the SQS emulator, from 1.43-1.45× a bare
 * SendMessage (the floor, a bare Hono app behind `handle`: 1.21-1.23×) to 1.28-1.30× (the floor
 * then 1.30-1.31×, a busier machine). `hono/aws-lambda` is deprecated in Hono 4.13 for
 * `@hono/aws-lambda`, which could not be installed here to be measured. Other event shapes (ALB,
 * VPC Lattice) are read as REST API events: the stack deploys an HTTP API.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../observability/logger.js';
import { EventHeaders } from './event-headers.js';
import { eventRequest, methodOf } from './event-request.js';
import { LambdaReply } from './lambda-reply.js';

/** The fields of a payload 2.0 (HTTP API, Function URL) or 1.0 (REST API) event read here. */
export interface LambdaHttpEvent {
  rawPath?: string;
  rawQueryString?: string;
  cookies?: string[];
  path?: string;
  httpMethod?: string;
  headers?: Record<string, string | undefined> | null;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
  requestContext?: { domainName?: string | undefined; http?: { method: string } };
  body?: string | null;
  isBase64Encoded?: boolean;
}

/** What Lambda returns to API Gateway: `multiValueHeaders` for a REST API event, else `headers`. */
export interface LambdaHttpResult {
  statusCode: number;
  body: string;
  isBase64Encoded: boolean;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
}

/**
 * The app's `c.env` under this adapter: hono/aws-lambda's bindings (`event`, `requestContext`,
 * `lambdaContext`), plus the body's bytes. A class, so nothing else's bindings pass for it.
 */
class LambdaBindings {
  constructor(
    readonly event: LambdaHttpEvent,
    readonly requestContext: LambdaHttpEvent['requestContext'],
    readonly lambdaContext: unknown,
    readonly body: Uint8Array,
  ) {}
}

/** The request's body as the event carried it, when the app runs under this adapter. */
export function lambdaBody(env: unknown): Uint8Array | undefined {
  return env instanceof LambdaBindings ? env.body : undefined;
}

/**
 * A text reply (`c.body(text, status, headers)`; `text` null: no body). Under this adapter it is a
 * LambdaReply (lambda-reply.ts), whose text the adapter returns as the result's body, and its
 * status and headers are exactly those given here (the webhook sets none with `c.header` or
 * `c.status` before a reply); anywhere else (the local stack, `app.request` in tests) it is the
 * Response `c.body` makes.
 */
export function textReply(
  c: Context,
  text: string | null,
  status: ContentfulStatusCode,
  headers: Record<string, string>,
): Response {
  if (!(c.env instanceof LambdaBindings))
    return text === null ? c.body(null, status, headers) : c.body(text, status, headers);
  return new LambdaReply(text, status, headers) as unknown as Response;
}

const PLAIN_TEXT = { 'content-type': 'text/plain;charset=UTF-8' };

const NON_ASCII = /[\u0080-\u{10FFFF}]/u;
/** As `handle`: a header value with non-ASCII characters goes in percent-encoded (Headers refuses them). */
const headerValue = (value: string) => (NON_ASCII.test(value) ? encodeURIComponent(value) : value);

function isV2(event: LambdaHttpEvent): boolean {
  return Object.hasOwn(event, 'rawPath') && Object.hasOwn(event.requestContext ?? {}, 'http');
}

function v2Headers(event: LambdaHttpEvent): EventHeaders {
  const headers = new EventHeaders();
  if (Array.isArray(event.cookies)) headers.set('Cookie', event.cookies.join('; '));
  for (const name in event.headers) {
    const value = event.headers[name];
    if (value) headers.set(name, headerValue(value));
  }
  return headers;
}

function v1Headers(event: LambdaHttpEvent): EventHeaders {
  const headers = new EventHeaders();
  for (const name in event.multiValueHeaders) {
    for (const value of event.multiValueHeaders[name] ?? []) headers.append(name, headerValue(value));
  }
  for (const name in event.headers) {
    const value = event.headers[name];
    if (value && !headers.has(name)) headers.set(name, headerValue(value));
  }
  return headers;
}

function v1Query(event: LambdaHttpEvent): string {
  const pairs: string[] = [];
  const add = (name: string, value: string) =>
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  if (event.multiValueQueryStringParameters) {
    for (const [name, values] of Object.entries(event.multiValueQueryStringParameters))
      for (const value of values ?? []) add(name, value);
  } else {
    for (const [name, value] of Object.entries(event.queryStringParameters ?? {}))
      if (value !== undefined) add(name, value ?? '');
  }
  return pairs.join('&');
}

/**
 * The event's body as bytes: base64-decoded when so marked, else its UTF-8. Decoded leniently, as
 * Buffer does (`handle` threw on bad base64, a 500): bytes that are not what Slack signed fail
 * the signature, a 401 with its reason. API Gateway never sends bad base64.
 */
function bodyOf(event: LambdaHttpEvent): Uint8Array {
  if (!event.body) return new Uint8Array(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** The Request the app routes on: URL, method and headers as `handle` built them (see event-request.ts). */
function requestOf(event: LambdaHttpEvent, body: Uint8Array): Request {
  const v2 = isV2(event);
  const headers = v2 ? v2Headers(event) : v1Headers(event);
  if (event.body) headers.set('content-length', String(body.byteLength));
  const host =
    event.requestContext?.domainName ??
    event.headers?.host ??
    event.headers?.Host ??
    event.multiValueHeaders?.host?.[0];
  const query = v2 ? event.rawQueryString : v1Query(event);
  const path = `https://${host}${v2 ? event.rawPath : event.path}`;
  const method = methodOf(
    (v2 ? event.requestContext?.http?.method : event.httpMethod) ?? 'GET',
    !!event.body,
  );
  // Parsed as a Request parses it: the same normalized URL, and a TypeError for one it refuses
  // (one it cannot parse, or one with credentials: a host header of `user:pass@host`).
  const url = new URL(query ? `${path}?${query}` : path);
  if (url.username !== '' || url.password !== '') throw new TypeError('a URL with credentials');
  return eventRequest(url.href, method, headers, body);
}

/** As `handle`: a body is base64-encoded unless its type is text, JSON or XML and it is not content-encoded. */
const TEXT_TYPE = /^text\/(?:plain|html|css|javascript|csv)|(?:\/|\+)(?:json|xml)\s*(?:;|$)/i;
const BINARY_XML = /^application\/vnd\.(?:apple\.installer|mozilla\.xul)\+xml\s*(?:;|$)/i;
function isBinary(res: Response): boolean {
  const type = res.headers.get('content-type');
  if (type && (BINARY_XML.test(type) || !TEXT_TYPE.test(type))) return true;
  const encoding = res.headers.get('content-encoding');
  return !!encoding && !/^identity$/i.test(encoding);
}

async function resultOf(event: LambdaHttpEvent, res: Response): Promise<LambdaHttpResult> {
  const text = LambdaReply.textOf(res);
  const binary = isBinary(res);
  let body: string;
  if (text !== undefined) body = !text ? '' : binary ? Buffer.from(text, 'utf8').toString('base64') : text;
  else if (!res.body) body = '';
  else body = binary ? Buffer.from(await res.arrayBuffer()).toString('base64') : await res.text();
  const result: LambdaHttpResult = { body, statusCode: res.status, isBase64Encoded: binary };
  const cookies = res.headers.getSetCookie();
  const multi = !!event.multiValueHeaders;
  if (multi) {
    const headers: Record<string, string[]> = {};
    res.headers.forEach((value, name) => {
      if (name !== 'set-cookie') headers[name] = [value];
    });
    if (cookies.length > 0) headers['set-cookie'] = cookies;
    result.multiValueHeaders = headers;
  } else {
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (name !== 'set-cookie') headers[name] = value;
    });
    result.headers = headers;
    if (cookies.length > 0) result.cookies = cookies;
  }
  return result;
}

/**
 * The app as a Lambda handler for API Gateway (HTTP or REST API) and Function URL events.
 * `logger`: where an event that cannot be made a request is logged (the app never sees it).
 */
export function handleLambda(
  app: { fetch: (request: Request, env: LambdaBindings) => Response | Promise<Response> },
  options: { logger?: Pick<Logger, 'warn' | 'error'> } = {},
): (event: LambdaHttpEvent, lambdaContext: unknown) => Promise<LambdaHttpResult> {
  return async (event, lambdaContext) => {
    let request: Request;
    let body: Uint8Array;
    try {
      body = bodyOf(event);
      request = requestOf(event, body);
    } catch (error) {
      // As `handle`: a header or URL the Request refuses is the caller's fault (400), else ours.
      // Logged without the refusal's message: it quotes the caller's header value.
      const refused = error instanceof TypeError;
      if (refused)
        options.logger?.warn('request', {
          outcome: 'invalid_request',
          status: 400,
          reason: 'a header or the URL is not valid HTTP',
        });
      else options.logger?.error('request', { outcome: 'internal_error', status: 500, error });
      // As the Response a string body makes: text/plain.
      const res = refused
        ? new LambdaReply('Invalid request', 400, PLAIN_TEXT)
        : new LambdaReply('Internal Server Error', 500, PLAIN_TEXT);
      return resultOf(event, res as unknown as Response);
    }
    const bindings = new LambdaBindings(event, event.requestContext, lambdaContext, body);
    return resultOf(event, await app.fetch(request, bindings));
  };
}
