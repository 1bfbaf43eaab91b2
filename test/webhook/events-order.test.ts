/**
 * `events [page]` shows the latest events, ten a page counted from the newest, whatever order the
 * platform pages in (the API does not specify it: spec 4.6); when the order cannot be known, the
 * reply says it is the platform's order instead of calling it the latest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { answerRead, type ConsoleReads } from '../../src/webhook/reads.js';
import { asText, consoleAt, readContext, TIME } from './events.js';
import { NO_CONSOLE } from './harness.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');

async function eventsPage(console: ConsoleReads, page: number) {
  const read = await answerRead(readContext(console, T0), { name: 'events', page });
  expect(read.outcome).toBe('ok');
  const all = JSON.stringify(read.reply.blocks);
  return { text: read.reply.text, all, times: all.match(TIME) ?? [] };
}

describe.each(['oldest-first', 'newest-first'] as const)(
  'events when the platform pages %s',
  (eventOrder) => {
    let sandbox: RunningSandbox;
    let console: ReturnType<typeof consoleAt>;
    let newestFirst: string[];

    beforeAll(async () => {
      // 35: the last page of an oldest-first platform is not full, so pages must be cut, not just reversed.
      sandbox = await startSandbox({ seed: 7, now: () => T0, eventCount: 35, eventOrder });
      console = consoleAt(sandbox.url, T0);
      const all = await console.events.list({ page: 1, limit: 100 });
      newestFirst = all.data
        .map((e) => Number(e.timestamp))
        .sort((a, b) => b - a)
        .map(asText);
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    it('page 1 holds the ten newest events, newest first, and says so', async () => {
      const first = await eventsPage(console, 1);
      expect(first.times).toEqual(newestFirst.slice(0, 10));
      expect(first.all).toContain('Latest events');
      expect(first.all).toContain('Newest first · Page 1 of 4 · 35 in all · `/autopilot events 2` for more');
    });

    it('pages continue ten apart down to the oldest, and no page is offered past it', async () => {
      const pages = await Promise.all([1, 2, 3, 4].map((page) => eventsPage(console, page)));
      expect(pages.flatMap((p) => p.times)).toEqual(newestFirst);
      expect(pages[3]?.all).toContain('Page 4 of 4');
      expect(pages[3]?.all).not.toContain('for more');
      expect((await eventsPage(console, 5)).text).toBe('There is no page 5 of events; the last is page 4.');
    });
  },
);

/** A platform answering with the given pages (1-based) and pagination. */
function fakeEvents(
  pages: Array<Array<Record<string, unknown>>>,
  pagination: (page: number) => Record<string, unknown>,
): ConsoleReads {
  return {
    ...NO_CONSOLE,
    events: {
      list: async (params) => {
        const page = params?.page ?? 1;
        return { data: pages[page - 1] ?? [], pagination: pagination(page) };
      },
    },
  } as ConsoleReads;
}

const event = (timestamp: number | string, name = 'purchase') => ({ timestamp: String(timestamp), name });

describe('events when the order cannot be known', () => {
  it('says the page is in the platform’s order when its timestamps are all the same', async () => {
    const tie = Array.from({ length: 10 }, () => event(T0));
    const read = await eventsPage(
      fakeEvents([tie, tie], (page) => ({ totalItems: 20, nextPage: page < 2 ? 'next' : null })),
      1,
    );
    expect(read.all).toContain("In the platform's order");
    expect(read.all).not.toContain('Latest events');
  });

  it('says so for an oldest-first platform that gives no total (its end cannot be found)', async () => {
    const ascending = Array.from({ length: 10 }, (_, i) => event(T0 + i * 1_000));
    const read = await eventsPage(
      fakeEvents([ascending], () => ({ nextPage: 'next' })),
      1,
    );
    expect(read.all).toContain("In the platform's order");
    expect(read.times[0]).toBe(asText(T0));
  });

  it('sorts a log that fits on one page, whatever order it came in', async () => {
    const mixed = [event(T0 + 2_000), event(T0), event(T0 + 5_000)];
    const read = await eventsPage(
      fakeEvents([mixed], () => ({ totalItems: 3, nextPage: null })),
      1,
    );
    expect(read.times).toEqual([T0 + 5_000, T0 + 2_000, T0].map(asText));
    expect(read.all).toContain('Newest first · Page 1 of 1 · 3 in all');
  });
});
