/**
 * A `nextPage` link no URL parser reads (`http://[bad`, a port out of range) made auto-pagination
 * throw a bare TypeError: not a ConsoleError (callers branch on the client's error tree), and
 * carrying the server's link on its `input`. It is refused as a PaginationError, after the items
 * already read, like a link to another origin.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConsoleClient, PaginationError } from '../../src/console/index.js';
import { page, type ScriptedServer, SEGMENT, startScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

it.each(['http://[bad', 'http://127.0.0.1:99999/console/v1/segments?page=2'])(
  'refuses a nextPage that is not a URL (%s) with PaginationError, after the items it had',
  async (link) => {
    server.setScript(() => page([SEGMENT], link));
    const client = createConsoleClient({ baseUrl: server.url, apiKey: 'test-key', mutationBudget: false });
    const seen: string[] = [];
    const walk = async () => {
      for await (const segment of client.segments.list()) seen.push(segment.id);
    };
    const error = await walk().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(seen).toEqual(['seg_1']);
    expect(error).toBeInstanceOf(PaginationError);
    expect(JSON.stringify(error)).not.toContain(link);
  },
);
