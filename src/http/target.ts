/**
 * What node:http makes of a request's URL, without parsing all of it on every request:
 * `http.request(url, options)` runs `urlToHttpOptions(new URL(url))` and copies the result
 * (1.4 µs on Node 20), where our requests differ only in the path and query after one origin. The
 * origin is parsed once (the last one seen), and the rest is taken as it is written when the
 * WHATWG parser would keep it so (no escape it would add, no dot segment it would remove, no `#`,
 * `\`, tab or newline); any other URL is left to node:http whole. Of the fields node:http builds
 * from a URL, it reads protocol, hostname, port, path and auth (none: no user info passes here),
 * never hash, search, pathname or href: the options below are those four, as a URL would give them
 * (test/http/target.test.ts holds them to urlToHttpOptions, and the requests to what a server gets).
 */
import type { Agent } from 'node:http';
import { urlToHttpOptions } from 'node:url';

export interface RequestTarget {
  protocol: string;
  hostname: string;
  port: number | undefined;
  path: string;
  method: string;
  headers: Readonly<Record<string, string>>;
  agent: Agent;
}

/** `http://` or `https://`, then a host and port written plainly (no user info, no escapes). */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.\-[\]:]+$/i;
/** A path and query of characters the parser keeps as they are (a path needs none escaped, nor a special URL's query). */
const KEPT = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/%]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/%?]+)?$/;
/** A segment that starts with a dot, written or escaped (`.`, `..`, `%2e`…: the parser removes those). */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

let last: { origin: string; protocol: string; hostname: string; port: number | undefined } | undefined;

/**
 * The options of `url`'s request as node:http would build them from the URL, with `method`,
 * `headers` and `agent`; undefined when only the URL parser can say (node:http is then given the URL).
 */
export function targetOf(
  url: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  agent: Agent,
): RequestTarget | undefined {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return undefined;
  const path = url.slice(start);
  if (!KEPT.test(path)) return undefined;
  const query = path.indexOf('?');
  if (DOT_SEGMENT.test(query === -1 ? path : path.slice(0, query))) return undefined;
  const origin = url.slice(0, start);
  if (last?.origin !== origin) {
    if (!ORIGIN.test(origin)) return undefined;
    let parsed: ReturnType<typeof urlToHttpOptions>;
    try {
      parsed = urlToHttpOptions(new URL(`${origin}/`));
    } catch {
      return undefined; // node:http throws the same on the whole URL
    }
    if (parsed.auth !== undefined) return undefined;
    last = {
      origin,
      protocol: parsed.protocol as string,
      hostname: parsed.hostname as string,
      port: parsed.port === undefined ? undefined : Number(parsed.port),
    };
  }
  return { protocol: last.protocol, hostname: last.hostname, port: last.port, path, method, headers, agent };
}
