/**
 * The pure half of reading the event log: laying a response out by position, checking its order,
 * walking pages past the cursor's floor so that each event is handed out exactly once, and
 * handing the pages to their consumer (src/sweeper/poller.ts does the requests).
 */
import type { Cursor } from '../state/sweep-cursor.js';
import { EventOrderError } from './errors.js';
import { eventHash, eventTime } from './identity.js';
import { type RecentWindow, windowOf } from './recent.js';
import type { EventLike, EventOrder } from './types.js';

export interface NewEvent {
  event: EventLike;
  /** `<hash>.<occurrence>`: stable across runs. */
  id: string;
  ts: number;
  position: number;
}

export interface PolledPage {
  newEvents: NewEvent[];
  /** The cursor after every event of this page (processed or new) is taken into account. */
  cursor: Cursor;
  page: number;
}

/** Why a scan ended: the log was read to its newest event, the run's deadline came, or the page budget ran out. */
export type StopReason = 'caught-up' | 'time' | 'max-pages';

export type PollEnd =
  | { caughtUp: true; stop: 'caught-up' }
  | { caughtUp: false; stop: Exclude<StopReason, 'caught-up'> };

export interface Positioned {
  event: EventLike;
  ts: number;
  pos: number;
}
export interface ReadPage {
  page: number;
  total: number;
  size: number;
  /** Ascending position. */
  items: Positioned[];
}

/**
 * Where a scan stands in the log: the next position to hand out, the window of events processed
 * near the boundary (src/sweeper/recent.ts) and the identities seen in this walk. Committed to
 * the cursor once a whole page is taken.
 */
export interface Walk extends RecentWindow {
  next: number;
  lastTs: number;
  /** The boundary never moves past this: the run's time plus the clock skew allowance. */
  horizon: number;
  /** Identity → events of it seen in this walk (from the floor on). */
  seen: Map<string, number>;
  observedSince: number | null;
  /** Events stamped after this are left for a later walk (the late-exposure walk's edge). */
  until: number;
  /** A page held an event stamped after `until`: the walk has read as far as it goes. */
  reachedUntil: boolean;
}

/**
 * When a page's events typically happened: the median of its timestamps, not the oldest. A
 * client SDK writes them, and one device with a reset clock (stamped in 2000, or 0) must not
 * make the sweeper believe it observed exposures for decades (it would judge configs stale
 * whose last use lies before the log's real start). The (upper) median errs late: observation shorter.
 */
function typicalStart(events: ReadonlyArray<{ ts: number }>): number | undefined {
  const stamps = events
    .map((e) => e.ts)
    .filter((ts) => !Number.isNaN(ts))
    .sort((a, b) => a - b);
  return stamps[Math.floor(stamps.length / 2)];
}

/** Events of one response laid out by position (ascending), for the order `o` (possibly a guess). */
export function layOut(
  served: readonly EventLike[],
  page: number,
  size: number,
  total: number,
  o: EventOrder,
): ReadPage {
  const items = served.map((event, j) => {
    const offset = (page - 1) * size + j;
    return { event, ts: eventTime(event), pos: o === 'oldest-first' ? offset : total - 1 - offset };
  });
  if (o === 'newest-first') items.reverse();
  return { page, total, size, items };
}

export function verifyOrder(read: ReadPage, o: EventOrder): void {
  let previous = Number.NEGATIVE_INFINITY;
  for (const item of read.items) {
    if (Number.isNaN(item.ts)) continue;
    if (item.ts < previous)
      throw new EventOrderError(
        `page ${read.page} is not ${o} (timestamps go ${o === 'oldest-first' ? 'down' : 'up'})`,
      );
    previous = item.ts;
  }
}

/** The order two timestamps (first served, later served) show; undefined when they cannot tell. */
export function orderOf(first: number | undefined, later: number | undefined): EventOrder | undefined {
  if (first === undefined || later === undefined || first === later) return undefined;
  return first < later ? 'oldest-first' : 'newest-first';
}

/**
 * A walk from `read`, which begins before the cursor's floor (or at the log's oldest event).
 * `gap`: the log's oldest event is newer than the newest one processed, so events may have
 * expired unread; our observation of exposures then starts again at the oldest page served
 * (when its events typically happened: `typicalStart`).
 */
export function startWalk(
  cursor: Cursor,
  read: ReadPage,
  horizon: number,
  gap = false,
  until = Number.POSITIVE_INFINITY,
): Walk {
  const window = windowOf(cursor);
  if (window.boundaryTs !== null && window.boundaryTs > horizon) {
    // Stored by a version that let a future-stamped event move the boundary: every event since
    // was skipped. Read the log again from its start; what is remembered is not handed out
    // again, and the rest keeps its ids (the worker and the notification marks drop copies).
    window.floorTs = null;
    window.boundaryTs = null;
  }
  const oldest = typicalStart(read.items);
  return {
    ...window,
    next: read.items[0]?.pos ?? 0,
    lastTs: Number.NEGATIVE_INFINITY,
    horizon,
    seen: new Map(),
    observedSince: gap && oldest !== undefined ? oldest : cursor.observedSince,
    until,
    reachedUntil: false,
  };
}

/**
 * The events of `read` not handed out before (by this run or an earlier one), advancing `walk`
 * past every event of the page. From the floor on, identity counts keep events exact (equal
 * timestamps, late events, future-stamped ones): neither lost nor doubled.
 */
/**
 * The time an event is kept at, checking the log's order; undefined when it is older than the
 * window. A timestamp that does not parse says nothing of order or age: such an event is neither
 * checked for order nor taken for older than the window (it might be a late one), and whether it
 * is new is its identity's count alone. (Read again after the window moved on, it is handed out
 * again under the same id, which the worker and the notification marks drop.)
 */
function placeInTime(item: { pos: number; ts: number }, walk: Walk): number | undefined {
  if (Number.isNaN(item.ts)) return stampOfUnparsable(walk);
  if (item.ts < walk.lastTs)
    throw new EventOrderError(`events at positions ${item.pos - 1} and ${item.pos} are out of order`);
  walk.lastTs = item.ts;
  return walk.floorTs !== null && item.ts < walk.floorTs ? undefined : item.ts;
}

/**
 * Where an event whose timestamp does not parse is kept: the newest of the time read before it
 * and the window's floor, so the window holds it while it may be read again.
 */
function stampOfUnparsable(walk: Walk): number {
  return Math.max(walk.lastTs, walk.floorTs ?? walk.boundaryTs ?? 0);
}

export function takeNewEvents(read: ReadPage, walk: Walk): NewEvent[] {
  const newEvents: NewEvent[] = [];
  const fresh: Array<{ ts: number }> = [];
  for (const item of read.items) {
    if (item.pos < walk.next) continue;
    const ts = placeInTime(item, walk);
    if (ts === undefined) continue; // older than the window: processed
    if (ts > walk.until) {
      // Left unseen: the next walk starts before its floor, so reads it again as new.
      walk.reachedUntil = true;
      continue;
    }
    const hash = eventHash(item.event);
    const occurrence = walk.seen.get(hash) ?? 0;
    walk.seen.set(hash, occurrence + 1);
    if (occurrence < (walk.kept.get(hash)?.count ?? 0)) continue; // processed on an earlier run
    walk.kept.set(hash, { ts, count: occurrence + 1 });
    // A client clock far ahead must not move the boundary: later events would land behind it.
    if (ts <= walk.horizon && (walk.boundaryTs === null || ts > walk.boundaryTs)) walk.boundaryTs = ts;
    newEvents.push({ event: item.event, id: `${hash}.${occurrence}`, ts, position: item.pos });
    fresh.push(item);
  }
  // Observation starts once, at the first page of new events (the log's old end on a first run).
  if (walk.observedSince === null) walk.observedSince = typicalStart(fresh) ?? null;
  const highest = read.items.at(-1)?.pos;
  if (highest !== undefined && highest >= walk.next) walk.next = highest + 1;
  return newEvents;
}

/** How reading the event log ended: the poll's own end, or the read that failed. */
export type ReadEnd = PollEnd | { caughtUp: false; stop: 'error'; error: unknown };

const NOT_READ = new Error('the poll was not read to its end');

/** A poll for a `for await` loop, and how it ended. */
export interface Reading {
  pages: AsyncGenerator<PolledPage, void>;
  /** Set when the loop over `pages` has run out; until then, "not read to its end". */
  end: ReadEnd;
}

/**
 * Wraps a poll for a `for await` loop, which cannot see a generator's return value: the end
 * goes to `end` instead. A failed read ends the loop like the log's end does, with `stop:
 * 'error'` (the sweeper reports it in the summary); a failure in the loop's body is not a
 * read's and propagates as usual.
 */
export function reading(poll: AsyncGenerator<PolledPage, PollEnd>): Reading {
  const read: Reading = { end: { caughtUp: false, stop: 'error', error: NOT_READ }, pages: follow() };
  // Runs on the loop's first step, once `read` exists.
  async function* follow(): AsyncGenerator<PolledPage, void> {
    try {
      read.end = yield* poll;
    } catch (error) {
      read.end = { caughtUp: false, stop: 'error', error };
    }
  }
  return read;
}
