/**
 * A log with retention and steady traffic: while a run reads, old events expire as fast as new
 * ones arrive, so `totalItems` stays the same while every position moves. The walk follows a
 * shrinking `totalItems` only (src/sweeper/poller.ts pageAfter), and skips by position before any
 * identity check, so each page read after such a shift hands out none of the events that slid
 * below its next position; older than the lookback by the next run, they are never read. An
 * exposure among them is lost, and a config used only there looks unused.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/observability/logger.js';
import type { Cursor } from '../src/state/sweep-cursor.js';
import { eventHash } from '../src/sweeper/identity.js';
import { createPoller } from '../src/sweeper/poller.js';
import type { EventLike, EventOrder, EventsSource } from '../src/sweeper/types.js';
import { NOW } from './sweeper/harness.js';

const MIN = 60_000;
const logger = createLogger({ service: 'steady-retention', sink: () => {} });

async function poll(events: EventsSource, cursor: Cursor | undefined, order: EventOrder) {
  const poller = createPoller({
    events,
    pageSize: 10,
    order,
    cursor,
    deadline: NOW + 60_000,
    now: NOW,
    clock: () => NOW,
    logger,
  });
  const hashes: string[] = [];
  let last = cursor;
  const pages = poller.pages();
  for (let i = 0; i < 1000; i++) {
    const r = await pages.next();
    if (r.done) break;
    hashes.push(...r.value.newEvents.map((e) => eventHash(e.event)));
    last = r.value.cursor;
  }
  return { hashes, cursor: last };
}

describe.each(['oldest-first', 'newest-first'] as const)(
  'steady retention while a run reads, %s',
  (order) => {
    it('hands out every event that is still in the log', async () => {
      // 100 events a minute apart (longer than the lookback), the oldest first in `log`.
      const event = (i: number): EventLike => ({
        timestamp: String(NOW - 200 * MIN + i * MIN),
        name: 'config_exposure',
        metadata: { config: `cfg_${i}` },
      });
      const log: EventLike[] = Array.from({ length: 100 }, (_, i) => event(i));
      let next = 100;
      let calls = 0;
      const source: EventsSource = {
        async list({ page, limit }) {
          calls++;
          // From the third request on, the three oldest (read already) expire as three new arrive.
          if (calls >= 3 && calls <= 6) {
            log.splice(0, 3);
            log.push(event(next++), event(next++), event(next++));
          }
          const served = order === 'oldest-first' ? log : [...log].reverse();
          return {
            data: served.slice((page - 1) * limit, page * limit),
            pagination: { itemsPerPage: limit, pageNumber: page, totalItems: served.length },
          };
        },
      };
      const first = await poll(source, undefined, order);
      const second = await poll(source, first.cursor, order);
      const handedOut = new Set([...first.hashes, ...second.hashes]);
      const lost = log.filter((e) => !handedOut.has(eventHash(e))).map((e) => e.metadata?.config);
      expect(lost).toEqual([]);
    });
  },
);
