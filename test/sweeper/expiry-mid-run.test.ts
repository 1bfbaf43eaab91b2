/**
 * Retention dropping the oldest events while a run reads shifts every position down. The walk
 * skips by position before any identity check, so the unread events that slid below its next
 * position used to be lost, in this run and the next (the boundary had moved past them).
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import type { Cursor } from '../../src/state/sweep-cursor.js';
import { eventHash } from '../../src/sweeper/identity.js';
import { createPoller } from '../../src/sweeper/poller.js';
import type { EventLike, EventOrder, EventsSource } from '../../src/sweeper/types.js';
import { NOW } from './harness.js';

const logger = createLogger({ service: 'expiry-mid-run', sink: () => {} });

function idsOf(all: EventLike[]): string[] {
  const seen = new Map<string, number>();
  return all.map((event) => {
    const hash = eventHash(event);
    const n = seen.get(hash) ?? 0;
    seen.set(hash, n + 1);
    return `${hash}.${n}`;
  });
}

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
  const ids: string[] = [];
  let last = cursor;
  const pages = poller.pages();
  for (let i = 0; i < 1000; i++) {
    const r = await pages.next();
    if (r.done) break;
    ids.push(...r.value.newEvents.map((e) => e.id));
    last = r.value.cursor;
  }
  return { ids, cursor: last };
}

describe.each(['oldest-first', 'newest-first'] as const)('old events expiring mid-run, %s', (order) => {
  it('loses none of the events that were not read yet', async () => {
    // 100 events one second apart, oldest first in `log`.
    const log: EventLike[] = Array.from({ length: 100 }, (_, i) => ({
      timestamp: String(NOW - 200_000 + i * 1000),
      name: 'page_view',
      value: `v${i}`,
    }));
    const everyId = idsOf(log);
    let calls = 0;
    const source: EventsSource = {
      async list({ page, limit }) {
        calls++;
        if (calls === 4) log.splice(0, 3); // retention drops the three oldest (already read) events
        const served = order === 'oldest-first' ? log : [...log].reverse();
        return {
          data: served.slice((page - 1) * limit, page * limit),
          pagination: { itemsPerPage: limit, pageNumber: page, totalItems: served.length },
        };
      },
    };
    const first = await poll(source, undefined, order);
    const second = await poll(source, first.cursor, order);
    const handedOut = [...first.ids, ...second.ids];
    expect(everyId.filter((id) => !handedOut.includes(id))).toEqual([]);
    expect(handedOut.length).toBe(new Set(handedOut).size);
  });
});
