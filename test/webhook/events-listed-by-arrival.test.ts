/**
 * `events [page]` on a platform that lists the log by arrival (the spec says neither: 4.6): a
 * client SDK's late batch, stamped earlier, sits among events stamped later. The command read
 * the order from page 1 only when every step went one way, so one late event on page 1 left the
 * order unknown: an oldest-first platform then had page 1 show the ten OLDEST events instead of
 * the latest (said to be "the platform's order"), and a newest-first one lost "newest first".
 * The order is now told as the sweeper tells it (src/sweeper/event-order.ts): by most pairs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewEvent, type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { answerRead, type ConsoleReads } from '../../src/webhook/reads.js';
import { asText, consoleAt, readContext, TIME } from './events.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const MIN = 60_000;
const context = (console: ConsoleReads) => readContext(console, T0);

/**
 * 25 events in the order they arrived, a minute apart, but one (at arrival `late`) a client
 * stamped two hours before all the others. `late` puts it on the page the platform serves first.
 */
function arrivals(late: number): NewEvent[] {
  return Array.from({ length: 25 }, (_, i) => ({
    timestamp: i === late ? T0 - 120 * MIN : T0 - (25 - i) * MIN,
    name: i === late ? 'late_batch' : 'page_view',
    userID: `u${i}`,
  }));
}

describe.each([
  ['oldest-first', 3],
  ['newest-first', 21],
] as const)(
  'events on a platform listing by arrival, %s, with a late event on its first page',
  (eventOrder, late) => {
    let sandbox: RunningSandbox;
    let console: ReturnType<typeof consoleAt>;
    const added = arrivals(late);
    /** Listed positions counted from the last arrived: what "latest" can mean without reading the whole log. */
    const lastArrivedFirst = [...added].reverse().map((e) => asText(Number(e.timestamp)));

    beforeAll(async () => {
      sandbox = await startSandbox({
        seed: 7,
        now: () => T0,
        eventCount: 0,
        eventOrder,
        eventListing: 'arrival',
      });
      sandbox.sandbox.addEvents(added);
      console = consoleAt(sandbox.url, T0);
      // The platform's first page (10) holds the late event.
      const first = await console.events.list({ page: 1, limit: 10 });
      expect(first.data.map((e) => e.name)).toContain('late_batch');
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    it('page 1 shows the latest events, newest first, and says so', async () => {
      const read = await answerRead(context(console), { name: 'events', page: 1 });
      expect(read.outcome).toBe('ok');
      const all = JSON.stringify(read.reply.blocks);
      expect(all.match(TIME)).toEqual(lastArrivedFirst.slice(0, 10));
      expect(all).toContain('Latest events');
      expect(all).toContain('Newest first · Page 1 of 3 · 25 in all');
    });

    it('pages continue ten apart down to the first listed', async () => {
      const pages = await Promise.all(
        [1, 2, 3].map(async (page) => {
          const read = await answerRead(context(console), { name: 'events', page });
          return JSON.stringify(read.reply.blocks).match(TIME) ?? [];
        }),
      );
      expect(pages.flat()).toEqual(lastArrivedFirst);
    });
  },
);
