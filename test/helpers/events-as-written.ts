/**
 * GET /console/v1/events over HTTP, serving a list of records exactly as written (nulls, strings,
 * records missing keys): the sandbox only ever serves well-formed events, and these tests need the
 * broken ones a client SDK can write.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface EventsAsWritten {
  /** Base URL for a Console client (`http://127.0.0.1:<port>`). */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `records` in their order, `limit` a page, read at every request (so a test may fill the
 * list after the server starts). `nextPage` adds the platform's link to the following page to the
 * pagination block.
 */
export function serveEventsAsWritten(
  records: readonly unknown[],
  options: { nextPage?: boolean } = {},
): Promise<EventsAsWritten> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const page = Number(url.searchParams.get('page') ?? 1);
    const limit = Number(url.searchParams.get('limit') ?? 10);
    const data = records.slice((page - 1) * limit, page * limit);
    const pagination = { itemsPerPage: limit, pageNumber: page, totalItems: records.length };
    const nextPage = page * limit < records.length ? String(page + 1) : null;
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        message: 'Events listed successfully',
        data,
        pagination: options.nextPage ? { ...pagination, nextPage } : pagination,
      }),
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

/**
 * `serveEventsAsWritten` for the enclosing describe block (or file): started before its tests,
 * closed after them, so a test file says only what it serves. Read `url` in hooks and tests only.
 */
export function eventsAsWrittenForTests(
  records: readonly unknown[],
  options: { nextPage?: boolean } = {},
): { readonly url: string } {
  let server: EventsAsWritten | undefined;
  beforeAll(async () => {
    server = await serveEventsAsWritten(records, options);
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get url() {
      if (!server)
        throw new Error('the events server is started before the first test (read it in hooks and tests)');
      return server.url;
    },
  };
}
