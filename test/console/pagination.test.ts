import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createConsoleClient,
  PaginationError,
  RequestValidationError,
  resolvePageLink,
} from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { page, type Received, type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const client = (extra: Partial<Parameters<typeof createConsoleClient>[0]> = {}) =>
  createConsoleClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0, mutationBudget: false, ...extra });

const pageOf = (req: Received) => Number(new URL(req.url, 'http://x').searchParams.get('page') ?? '1');
const segments = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `seg_${n}_${i}`, type: 'id_list' }));

/** Serves `pages` pages of two segments each; `link(next)` writes the nextPage link. */
function servePages(pages: number, link: (next: number) => string) {
  server.setScript((req) => {
    const n = pageOf(req);
    const data = [0, 1].map((i) => ({ id: `seg_${n}_${i}`, type: 'id_list' }));
    return page(data, n < pages ? link(n + 1) : null, n);
  });
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('a list call', () => {
  it('resolves to one page with data and pagination, asking page=1&limit=10 by default', async () => {
    servePages(3, (next) => `/console/v1/segments?page=${next}&limit=10`);
    const first = await client().segments.list();
    expect(first.data).toHaveLength(2);
    expect(first.pagination.nextPage).toBe('/console/v1/segments?page=2&limit=10');
    expect(first.message).toBe('listed');
    expect(server.requests.map((r) => r.url)).toEqual(['/console/v1/segments?page=1&limit=10']);
  });

  it('passes page and limit through', async () => {
    servePages(1, () => '');
    await client().segments.list({ page: 3, limit: 100 });
    expect(server.requests[0]?.url).toBe('/console/v1/segments?page=3&limit=100');
  });

  it('makes no request until awaited or iterated', async () => {
    servePages(1, () => '');
    // A request starts by asking for the key, with no I/O before it: once every queued microtask
    // has run (setImmediate fires after them), a started request has asked. No sleep involved.
    const asked: string[] = [];
    const keyFor = (name: string) => async () => {
      asked.push(name);
      return 'k';
    };
    const lazy = client({ apiKey: keyFor('lazy') }).segments.list();
    const awaited = client({ apiKey: keyFor('awaited') }).segments.list();
    const done = awaited.then((page) => page.data.length);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual(['awaited']);
    expect(await done).toBe(2);
    expect(server.requests).toHaveLength(1);
    await lazy;
    expect(asked).toEqual(['awaited', 'lazy']);
    expect(server.requests).toHaveLength(2);
  });

  it('does not fetch the first page twice when awaited and then iterated', async () => {
    servePages(2, (next) => `?page=${next}&limit=10`);
    const list = client().segments.list();
    await list;
    const items = await collect(list);
    expect(items).toHaveLength(4);
    expect(server.requests).toHaveLength(2);
  });

  it('rejects invalid page or limit without a request', async () => {
    await expect(client().segments.list({ page: 0 })).rejects.toBeInstanceOf(RequestValidationError);
    await expect(collect(client().segments.list({ limit: 1.5 }))).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('iteration follows nextPage in every form', () => {
  it.each([
    ['an absolute path', (n: number) => `/console/v1/segments?page=${n}&limit=10`],
    ['a path without the leading slash', (n: number) => `console/v1/segments?page=${n}&limit=10`],
    ['a bare query string', (n: number) => `?page=${n}&limit=10`],
  ])('resolves %s against the base URL', async (_, link) => {
    servePages(4, link);
    const items = await collect(client().segments.list());
    expect(items.map((s) => s.id)).toEqual([1, 2, 3, 4].flatMap((n) => [`seg_${n}_0`, `seg_${n}_1`]));
    expect(server.requests.map((r) => pageOf(r))).toEqual([1, 2, 3, 4]);
  });

  it('follows an absolute URL on the same origin', async () => {
    servePages(3, (n) => `${server.url}/console/v1/segments?page=${n}&limit=10`);
    expect(await collect(client().segments.list())).toHaveLength(6);
  });

  it('keeps the base URL path prefix for /console/v1 links', async () => {
    servePages(2, (n) => `/console/v1/metrics/metric_source/list?page=${n}&limit=10`);
    server.setScript((req) => {
      const n = pageOf(req);
      return page(
        [{ name: `src_${n}` }],
        n < 2 ? `/console/v1/metrics/metric_source/list?page=${n + 1}` : null,
        n,
      );
    });
    const items = await collect(client({ baseUrl: `${server.url}/prefix` }).metricSources.list());
    expect(items.map((s) => s.name)).toEqual(['src_1', 'src_2']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/prefix/console/v1/metrics/metric_source/list?page=1&limit=10',
      '/prefix/console/v1/metrics/metric_source/list?page=2',
    ]);
  });

  it('gives pages one at a time with .pages()', async () => {
    servePages(3, (n) => `?page=${n}&limit=10`);
    const pages = await collect(client().segments.list().pages());
    expect(pages.map((p) => p.pagination.pageNumber)).toEqual([1, 2, 3]);
  });

  it('lets a consumer stop early without fetching further pages', async () => {
    servePages(100, (n) => `?page=${n}&limit=10`);
    let seen = 0;
    for await (const _ of client().segments.list()) {
      if (++seen === 3) break;
    }
    expect(server.requests).toHaveLength(2);
  });
});

describe('iteration stops', () => {
  it('on an empty nextPage string', async () => {
    server.setScript(() => page(segments(2), ''));
    expect(await collect(client().segments.list())).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
  });

  it('on an empty page even when a nextPage is given', async () => {
    server.setScript((req) => (pageOf(req) === 1 ? page(segments(2), '?page=2') : page([], '?page=3')));
    expect(await collect(client().segments.list())).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
  });

  it('on a link seen before (a server that loops), regardless of parameter order', async () => {
    server.setScript((req) => {
      const n = pageOf(req);
      return page(segments(1), n === 1 ? '?page=2&limit=10' : '?limit=10&page=1', n);
    });
    const lines: string[] = [];
    const logger = createLogger({ service: 't', sink: (line) => lines.push(line) });
    expect(await collect(client({ logger }).segments.list())).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
    expect(lines.join('\n')).toContain('seen before');
  });

  it('at maxPages', async () => {
    server.setScript((req) => page(segments(1), `?page=${pageOf(req) + 1}`));
    expect(await collect(client({ maxPages: 5 }).segments.list())).toHaveLength(5);
    expect(server.requests).toHaveLength(5);
  });

  it('with PaginationError on a link to another origin, after the items it had', async () => {
    server.setScript(() => page(segments(2), 'https://evil.example/console/v1/segments?page=2'));
    const seen: string[] = [];
    const run = async () => {
      for await (const s of client().segments.list()) seen.push(s.id);
    };
    await expect(run()).rejects.toBeInstanceOf(PaginationError);
    expect(seen).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
  });

  it('with PaginationError on a link to another path, after the items it had', async () => {
    // The first request asked /events/a%2Fb/metrics; a server that writes the event name back
    // decoded links to /events/a/b/metrics, another endpoint, which must not get the API key.
    server.setScript((req) =>
      page(
        [{ id: `m_${pageOf(req)}::event_count` }],
        `/console/v1/events/a/b/metrics?page=${pageOf(req) + 1}&limit=10`,
        pageOf(req),
      ),
    );
    const seen: string[] = [];
    const run = async () => {
      for await (const m of client().metrics.listByEvent('a/b')) seen.push(m.id);
    };
    await expect(run()).rejects.toBeInstanceOf(PaginationError);
    expect(seen).toEqual(['m_1::event_count']);
    expect(server.requests.map((r) => r.url)).toEqual(['/console/v1/events/a%2Fb/metrics?page=1&limit=10']);
  });
});

describe('resolvePageLink', () => {
  const base = 'https://api.example.com/gw';
  const current = 'https://api.example.com/gw/console/v1/events?page=1&limit=10';
  it.each([
    ['/console/v1/events?page=2&limit=10', 'https://api.example.com/gw/console/v1/events?page=2&limit=10'],
    ['console/v1/events?page=2&limit=10', 'https://api.example.com/gw/console/v1/events?page=2&limit=10'],
    ['?page=2&limit=10', 'https://api.example.com/gw/console/v1/events?page=2&limit=10'],
    ['/gw/console/v1/events?page=2', 'https://api.example.com/gw/console/v1/events?page=2'],
    [
      'https://api.example.com/gw/console/v1/events?page=2',
      'https://api.example.com/gw/console/v1/events?page=2',
    ],
    ['events?page=2', 'https://api.example.com/gw/console/v1/events?page=2'],
  ])('resolves %s', (link, expected) => {
    expect(resolvePageLink(link, current, base)).toBe(expected);
  });

  it.each([
    'https://other.example.com/console/v1/events?page=2',
    '//other.example.com/x',
    'http://api.example.com/x',
  ])('refuses %s (another origin)', (link) => {
    expect(() => resolvePageLink(link, current, base)).toThrow(PaginationError);
  });

  it.each([
    '/console/v1/segments?page=2',
    'console/v1/events/x/metrics?page=2',
    'https://api.example.com/gw/console/v1/experiments?page=2',
    'https://user@api.example.com/gw/console/v1/events?page=2',
    '/gw/console/v1/events/?page=2',
    'metrics?page=2',
  ])('refuses %s (another path or user on the same origin)', (link) => {
    expect(() => resolvePageLink(link, current, base)).toThrow(PaginationError);
  });
});
