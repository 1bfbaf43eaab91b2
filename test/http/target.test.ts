/**
 * The sender builds a request's node:http options itself when its origin was seen before
 * (src/http/target.ts) instead of handing node:http the URL to parse: the options must be the
 * ones node:http builds from the URL (protocol, hostname, port, path; no auth), and any URL the
 * WHATWG parser would rewrite (escapes it adds, dot segments it removes, `\`, `#`, tabs) is left
 * to node:http whole. A server must see the same request line and Host either way.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSend } from '../../src/http/send.js';
import { targetOf } from '../../src/http/target.js';

const agent = new Agent();
const target = (url: string) => targetOf(url, 'GET', {}, agent);

/** What node:http reads of the options it builds from `url`. */
function fromUrl(url: string) {
  const options = urlToHttpOptions(new URL(url));
  return { protocol: options.protocol, hostname: options.hostname, port: options.port, path: options.path };
}

describe('targetOf', () => {
  it('gives the options node:http builds from the URL, for any path and query, or leaves the URL to it', () => {
    const origins = [
      'http://127.0.0.1:8080',
      'HTTP://LocalHost:3000',
      'https://api.example.com',
      'https://api.example.com:443',
      'http://[::1]:9000',
      'http://example.com:',
      'http://user:pw@example.com',
      'http://ex%41mple.com',
      'http://127.1',
    ];
    const chars = fc.constantFrom(
      ...'aZ09-._~!$&()*+,;=:@/%?'.split(''),
      '.',
      '..',
      '%2e',
      '%2E',
      '%41',
      ' ',
      '#',
      '\\',
      '\t',
      '\n',
      "'",
      '"',
      '<',
      '`',
      '{',
      '|',
      '^',
      '[',
      'é',
      '\u2028',
    );
    let made = 0;
    let left = 0;
    fc.assert(
      fc.property(fc.constantFrom(...origins), fc.array(chars, { maxLength: 12 }), (origin, parts) => {
        const url = `${origin}/${parts.join('')}`;
        const options = target(url);
        if (options === undefined) {
          left++;
          return;
        }
        made++;
        expect({
          protocol: options.protocol,
          hostname: options.hostname,
          port: options.port,
          path: options.path,
        }).toEqual(fromUrl(url));
        expect(urlToHttpOptions(new URL(url)).auth).toBeUndefined();
      }),
      { numRuns: 5000 },
    );
    expect(made).toBeGreaterThan(500);
    expect(left).toBeGreaterThan(500);
  });

  it('leaves to node:http what the parser rewrites or refuses', () => {
    for (const url of [
      'http://h:1/a/../b',
      'http://h:1/a/%2E%2E/b',
      'http://h:1/./b',
      'http://h:1/a b',
      'http://h:1/a#frag',
      'http://h:1/a\\b',
      'http://h:1/a?',
      "http://h:1/a?q='x'",
      'http://h:1/é',
      'http://user:pw@h:1/a',
      'http://h:99999/a',
      'http:/h/a',
      'http://h:1',
    ])
      expect(target(url), url).toBeUndefined();
    // A URL the parser keeps as written.
    expect(target('http://h:1/console/v1/segments/beta_%2F1?limit=10&page=2')).toMatchObject({
      hostname: 'h',
      port: 1,
      path: '/console/v1/segments/beta_%2F1?limit=10&page=2',
    });
  });

  it('reads each origin afresh when requests alternate between two', () => {
    expect(target('http://a.example:1/x')).toMatchObject({ hostname: 'a.example', port: 1, path: '/x' });
    expect(target('https://B.example/y')).toMatchObject({
      protocol: 'https:',
      hostname: 'b.example',
      port: undefined,
      path: '/y',
    });
    expect(target('http://a.example:1/z')).toMatchObject({ hostname: 'a.example', port: 1, path: '/z' });
  });
});

describe('a request sent with the options made here', () => {
  const seen: Array<{ url: string | undefined; host: string | undefined }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url, host: req.headers.host });
    res.end('{}');
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** The request line and Host a server sees for `url` sent by hand: node:http given the URL. */
  const byHand = (url: string) =>
    new Promise<{ url: string | undefined; host: string | undefined }>((resolve, reject) => {
      const req = request(url, (res) => {
        res.resume();
        res.on('end', () => resolve(seen[seen.length - 1] as { url: string; host: string }));
      });
      req.on('error', reject);
      req.end();
    });

  it('reaches the server as node:http given the URL sends it', async () => {
    const send = createNodeSend();
    for (const path of [
      '/console/v1/segments/s1',
      '/a/b?limit=10&page=2',
      '/x%20y/%2e?q=a/b',
      '/a/./b',
      '/é?x=1',
    ]) {
      for (const origin of [`http://127.0.0.1:${port}`, `HTTP://LOCALHOST:${port}`]) {
        const url = `${origin}${path}`;
        await send({ method: 'GET', url, headers: {}, timeoutMs: 5000 });
        const ours = seen[seen.length - 1];
        expect(ours).toEqual(await byHand(url));
      }
    }
  });
});
