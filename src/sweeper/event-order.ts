/**
 * The order of `GET /events` pages, told from their timestamps: detected on page 1 and verified
 * on every page (src/sweeper/page-reader.ts); chat's `events` reads it the same way
 * (src/webhook/latest-events.ts). The spec does not say how the log is ordered (4.6),
 * and a platform listing events as they arrive puts a client SDK's late batch, stamped earlier,
 * after events stamped later: a page is taken for the other order only when its timestamps go
 * mostly the wrong way, never for a few late events (the walk counts those: src/sweeper/event-walk.ts).
 */
import { EventOrderError } from './errors.js';
import type { ReadPage } from './event-walk.js';
import type { EventOrder } from './types.js';

/**
 * Pairs of timestamps (unparsable ones skipped; each with every one listed after it) that go up
 * and that go down. A log served the other way round has (nearly) every pair the wrong way. Listed
 * by arrival, each client's events still go up among themselves, a late batch only against the
 * events listed before it: with one client's events all late, about a quarter of the pairs go
 * down (neighbours alone would go down as often as up). O(n²): a page of 1,000 events is half a
 * million comparisons, a millisecond or so.
 */
function steps(stamps: readonly number[]): { up: number; down: number } {
  const known = stamps.filter((ts) => !Number.isNaN(ts));
  let up = 0;
  let down = 0;
  for (let i = 0; i < known.length; i++) {
    const ts = known[i] as number;
    for (let j = i + 1; j < known.length; j++) {
      const later = known[j] as number;
      if (later > ts) up++;
      else if (later < ts) down++;
    }
  }
  return { up, down };
}

/**
 * Fails when the page's timestamps go mostly the wrong way for `o`: it is served in the other
 * order. Fewer pairs back are disorder (late events listed by arrival), counted by the walk. One
 * pair alone (a page of two events) cannot tell a reversed page from one late event: it passes.
 * (A page whose late batches outweigh its events on time, most pairs going back, still fails.)
 */
export function verifyOrder(read: ReadPage, o: EventOrder): void {
  const { up, down } = steps(read.items.map((i) => i.ts));
  if (down > up && down >= 2)
    throw new EventOrderError(
      `page ${read.page} is not ${o} (timestamps go ${o === 'oldest-first' ? 'down' : 'up'})`,
    );
}

/** The order the timestamps of one page, in the order served, show mostly; undefined when they cannot tell. */
export function servedOrder(stamps: readonly number[]): EventOrder | undefined {
  const { up, down } = steps(stamps);
  return up === down ? undefined : up > down ? 'oldest-first' : 'newest-first';
}

/** The order two timestamps (first served, later served) show; undefined when they cannot tell. */
export function orderOf(first: number | undefined, later: number | undefined): EventOrder | undefined {
  if (first === undefined || later === undefined || first === later) return undefined;
  return first < later ? 'oldest-first' : 'newest-first';
}
