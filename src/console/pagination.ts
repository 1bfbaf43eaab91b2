/**
 * Auto-pagination. A list call returns a PagePromise: await it for the first page, iterate
 * it with `for await` for every item of every page, or call `.pages()` for page-at-a-time.
 * Nothing is requested until it is awaited or iterated.
 *
 * `nextPage` links come in several forms (`/console/v1/x?page=2`, `console/v1/x?page=2`,
 * `?page=2`, an absolute URL); each is resolved against the base URL, and a link to another
 * origin is refused (it would carry the API key elsewhere), as is one to another path of the same
 * origin: only the query may differ from the first request's (a server writing an event name back
 * decoded, `/events/a/b/metrics`, would send the key to another endpoint). Iteration stops on a null or
 * empty `nextPage`, an empty page, a link seen before, and after `maxPages` pages.
 */
import type { Logger } from '../observability/logger.js';
import { PaginationError } from './errors.js';
import type { Pagination } from './schemas/common.js';

export interface Page<T> {
  data: T[];
  pagination: Pagination;
  message: string;
}

export const DEFAULT_MAX_PAGES = 1000;

export interface PageSource<T> {
  /** Absolute URL of the first page. */
  firstUrl: string;
  /** The client's base URL (origin plus any path prefix before `/console/v1`). */
  baseUrl: string;
  fetchPage(url: string): Promise<Page<T>>;
  maxPages: number;
  logger?: Logger | undefined;
}

export class PagePromise<T> implements Promise<Page<T>>, AsyncIterable<T> {
  readonly [Symbol.toStringTag] = 'PagePromise';
  private first: Promise<Page<T>> | undefined;

  constructor(private readonly source: PageSource<T>) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.source.fetchPage(this.source.firstUrl);
    return this.first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is meant to be awaited.
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.firstPage().finally(onfinally);
  }

  /**
   * Every page, following `nextPage` within the bounds above.
   *
   * @example
   * for await (const page of client.segments.list({ limit: 50 }).pages()) console.log(page.data.length);
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    const { baseUrl, fetchPage, maxPages, logger } = this.source;
    let url = this.source.firstUrl;
    const seen = new Set([pageKey(url)]);
    let page = await this.firstPage();
    for (let count = 1; ; count++) {
      yield page;
      const link = page.pagination.nextPage;
      if (!link || link.trim() === '' || page.data.length === 0) return;
      const next = resolvePageLink(link, url, baseUrl);
      if (seen.has(pageKey(next))) {
        logger?.warn('console api pagination stopped: nextPage was seen before', {
          nextPage: new URL(next).search,
        });
        return;
      }
      if (count >= maxPages) {
        logger?.warn('console api pagination stopped at maxPages', { maxPages });
        return;
      }
      seen.add(pageKey(next));
      url = next;
      page = await fetchPage(url);
    }
  }

  /**
   * Every item of every page.
   *
   * @example
   * for await (const segment of client.segments.list()) console.log(segment.id);
   */
  [Symbol.asyncIterator](): AsyncIterator<T, void, undefined> {
    // Hand-written rather than `yield*` in an async generator: that costs several promise
    // hops per item, which dominated iterating small pages (benchmark).
    const pages = this.pages();
    let buffer: T[] = [];
    let index = 0;
    return {
      async next(): Promise<IteratorResult<T, void>> {
        while (index >= buffer.length) {
          const result = await pages.next();
          if (result.done) return { done: true, value: undefined };
          buffer = result.value.data;
          index = 0;
        }
        return { done: false, value: buffer[index++] as T };
      },
      async return(): Promise<IteratorResult<T, void>> {
        await pages.return(undefined);
        return { done: true, value: undefined };
      },
    };
  }
}

/**
 * Resolves a `nextPage` link against the base URL (keeping any path prefix before
 * `/console/v1`) or, for `?query` and other relative forms, against the current page.
 * Throws PaginationError for a link to another origin, to another path (or user) than
 * `currentUrl`'s (every page keeps the first request's path; only the query may differ), or one
 * that is not a URL.
 *
 * @example
 * resolvePageLink('?page=2&limit=10', 'https://h/gw/console/v1/events?page=1', 'https://h/gw')
 * // 'https://h/gw/console/v1/events?page=2&limit=10'
 */
export function resolvePageLink(link: string, currentUrl: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const trimmed = link.trim();
  let resolved: URL;
  // A link no URL parser reads (`http://[bad`) is refused like any other we will not follow: one
  // error tree for callers, and the TypeError's `input` would carry the server's link onwards.
  try {
    resolved = parsePageLink(trimmed, currentUrl, base);
  } catch {
    throw new PaginationError('refusing to follow a nextPage link that is not a valid URL');
  }
  if (resolved.origin !== new URL(base).origin) {
    throw new PaginationError(`refusing to follow a nextPage link to another origin (${resolved.origin})`);
  }
  // The path as sent, encoded: a link naming another endpoint (or another user) is not this list's
  // next page. Not logged: the server's path may carry what the request encoded.
  if (endpointOf(resolved) !== endpointOf(new URL(currentUrl))) {
    throw new PaginationError('refusing to follow a nextPage link to another path than the first page');
  }
  return resolved.href;
}

function parsePageLink(trimmed: string, currentUrl: string, base: string): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) return new URL(trimmed, base);
  if (trimmed.startsWith('?')) {
    const resolved = new URL(currentUrl);
    resolved.search = trimmed;
    return resolved;
  }
  if (trimmed.startsWith('/console/')) return new URL(base + trimmed);
  if (trimmed.startsWith('console/')) return new URL(`${base}/${trimmed}`);
  return new URL(trimmed, currentUrl);
}

/**
 * Origin, user and the path's segments decoded: the client encodes a segment with
 * encodeURIComponent (`:` as `%3A`), and a server writing it back decoded (`checkout:done`) names
 * the same endpoint. A decoded `/` (`a%2Fb` written `a/b`) makes other segments: another endpoint.
 */
function endpointOf(url: URL): string {
  const segments = url.pathname.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment; // a lone `%`: compared as written
    }
  });
  return JSON.stringify([url.origin, url.username, url.password, segments]);
}

/** Identity of a page URL regardless of query parameter order. */
function pageKey(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.sort();
  parsed.hash = '';
  return parsed.href;
}
