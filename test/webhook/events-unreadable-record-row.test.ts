/**
 * `/autopilot events` with a broken entry among the events (`null`, a string, a list: a client
 * SDK's broken batch). Since f11472a such an element reads as an empty record, in its place so
 * that pagination stays right; the listing showed it as a row of blanks, which a release manager
 * reads as a rendering fault or misses. It is now one row saying the record was unreadable, in
 * its place. Through the real client and read handler, serving the platform's raw pages.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { answerRead, type ConsoleReads, type ReadContext } from '../../src/webhook/reads.js';
import { testPolicy } from './harness.js';

const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);

/** Newest first, 14 entries a minute apart; the third and the fifth broken. */
const records: unknown[] = Array.from({ length: 14 }, (_, i) => ({
  timestamp: String(T0 - i * 60_000),
  name: `e${i}`,
  source: 'web',
  userID: `u${i}`,
}));
records[2] = null;
records[4] = 'garbage';

function eventsServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const page = Number(url.searchParams.get('page') ?? 1);
    const limit = Number(url.searchParams.get('limit') ?? 10);
    const data = records.slice((page - 1) * limit, page * limit);
    const nextPage = page * limit < records.length ? String(page + 1) : null;
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        message: 'Events listed successfully',
        data,
        pagination: { itemsPerPage: limit, pageNumber: page, totalItems: records.length, nextPage },
      }),
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('events listing with an unreadable entry', () => {
  let server: Server;
  let reads: ConsoleReads;
  beforeAll(async () => {
    server = await eventsServer();
    reads = createConsoleClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: 'k',
      maxRetries: 0,
      mutationBudget: false,
      clock: clockOf(() => T0),
    }) as unknown as ConsoleReads;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('shows each as one row saying the record was unreadable, in its place, never a blank row', async () => {
    const ctx: ReadContext = {
      console: reads,
      policy: testPolicy(),
      status: { readPause: async () => ({ paused: false }) },
      userId: 'U0READER',
      slash: '/autopilot',
      deadline: T0 + 5_000,
      now: () => T0,
    };
    const read = await answerRead(ctx, { name: 'events', page: 1 });
    expect(read.outcome, read.reply.text).toBe('ok');
    const text = (read.reply.blocks ?? [])
      .map((b) => (b as { text?: { text?: string } }).text?.text ?? '')
      .find((t) => t.startsWith('```'));
    const lines = (text ?? '').split('\n').slice(2, -1); // the rows, less the fence and the header
    expect(lines).toHaveLength(10);
    expect(lines.filter((line) => line.trim() === '')).toEqual([]);
    expect(lines[2]).toMatch(/^\(unreadable record\)/);
    expect(lines[4]).toMatch(/^\(unreadable record\)/);
    expect(lines[3]).toContain('e3');
    expect(lines.filter((line) => line.includes('unreadable'))).toHaveLength(2);
  });
});
