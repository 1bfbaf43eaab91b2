/**
 * A log with retention and steady traffic: while a run reads, old events expire as fast as new
 * ones arrive, so `totalItems` stays the same while every position moves. The walk follows a
 * shrinking `totalItems` only (src/sweeper/poller.ts pageAfter), and skips by position before any
 * identity check, so each page read after such a shift hands out none of the events that slid
 * below its next position; older than the lookback by the next run, they are never read. An
 * exposure among them was lost, and a config used only there looked unused. The run now checks
 * at its end whether the log moved and reads its span again (src/sweeper/shift-check.ts); a run
 * stopped by its page budget checks with the last request it keeps and, the log moved, starts
 * observation of exposures again instead.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import type { Cursor } from '../../src/state/sweep-cursor.js';
import type { PollEnd } from '../../src/sweeper/event-walk.js';
import { eventHash } from '../../src/sweeper/identity.js';
import { createPoller } from '../../src/sweeper/poller.js';
import type { EventLike, EventOrder, EventsSource } from '../../src/sweeper/types.js';
import { NOW } from './harness.js';

const MIN = 60_000;
const logger = createLogger({ service: 'steady-retention', sink: () => {} });

async function poll(events: EventsSource, cursor: Cursor | undefined, order: EventOrder, maxPages?: number) {
  const poller = createPoller({
    events,
    pageSize: 10,
    order,
    cursor,
    deadline: NOW + 60_000,
    now: NOW,
    clock: () => NOW,
    logger,
    ...(maxPages ? { maxPages } : {}),
  });
  const hashes: string[] = [];
  let last = cursor;
  let end: PollEnd | undefined;
  const pages = poller.pages();
  for (let i = 0; i < 1000; i++) {
    const r = await pages.next();
    if (r.done) {
      end = r.value;
      break;
    }
    hashes.push(...r.value.newEvents.map((e) => eventHash(e.event)));
    last = r.value.cursor;
  }
  return { hashes, cursor: last, end, requests: poller.stats.requests };
}

/** 100 events a minute apart (longer than the lookback); from the request `from` to `to`, three expire as three arrive. */
function steadyLog(order: EventOrder, moves = { from: 3, to: 6 }) {
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
      if (calls >= moves.from && calls <= moves.to) {
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
  return { log, source };
}

describe.each(['oldest-first', 'newest-first'] as const)(
  'steady retention while a run reads, %s',
  (order) => {
    it('hands out every event that is still in the log', async () => {
      const { log, source } = steadyLog(order);
      const first = await poll(source, undefined, order);
      const second = await poll(source, first.cursor, order);
      const handedOut = new Set([...first.hashes, ...second.hashes]);
      const lost = log.filter((e) => !handedOut.has(eventHash(e))).map((e) => e.metadata?.config);
      expect(lost).toEqual([]);
    });

    it('a run stopped by its page budget checks with its last request, and starts observation again when the log moved', async () => {
      const { source } = steadyLog(order);
      const run = await poll(source, undefined, order, 5);
      // Four pages read (five requests for newest-first: page 1 first), the last request the check.
      expect({ end: run.end, requests: run.requests, observedSince: run.cursor?.observedSince }).toEqual({
        end: { caughtUp: false, stop: 'max-pages' },
        requests: 5,
        observedSince: null,
      });
    });

    it('a run stopped by its page budget keeps observation when nothing moved', async () => {
      const { source } = steadyLog(order, { from: 0, to: 0 });
      const run = await poll(source, undefined, order, 5);
      expect({ end: run.end, requests: run.requests }).toEqual({
        end: { caughtUp: false, stop: 'max-pages' },
        requests: 5,
      });
      expect(run.cursor?.observedSince).toEqual(expect.any(Number));
    });
  },
);
