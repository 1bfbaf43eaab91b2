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
 * down (neighbours alone would go down as often as up). Counted by a merge sort (pairs going down
 * are its inversions, equal pairs its ties), O(n log n): every page is checked, and a page is as
 * large as the API serves (SWEEPER_PAGE_SIZE, or a platform ignoring `limit`), where comparing
 * every pair (O(n²)) took seconds of a run for 50,000 events and minutes for 500,000.
 */
function steps(stamps: readonly number[]): { up: number; down: number } {
  const known = stamps.filter((ts) => !Number.isNaN(ts));
  const n = known.length;
  const down = inversions(known);
  const sorted = known.sort((a, b) => a - b);
  let ties = 0;
  for (let i = 0, run = 1; i < n; i++, run++) {
    if (i + 1 < n && sorted[i + 1] === sorted[i]) continue;
    ties += (run * (run - 1)) / 2;
    run = 0;
  }
  return { up: (n * (n - 1)) / 2 - down - ties, down };
}

/** Pairs i < j with `values[j] < values[i]` (strictly), by a bottom-up merge sort of a copy. */
function inversions(values: readonly number[]): number {
  let from = [...values];
  let to = new Array<number>(from.length);
  let count = 0;
  for (let width = 1; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const left = from[i] as number;
        const right = from[j] as number;
        // Equal values are taken from the left: a tie is no inversion.
        if (right < left) {
          count += mid - i;
          to[k++] = right;
          j++;
        } else {
          to[k++] = left;
          i++;
        }
      }
      while (i < mid) to[k++] = from[i++] as number;
      while (j < hi) to[k++] = from[j++] as number;
    }
    [from, to] = [to, from];
  }
  return count;
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
