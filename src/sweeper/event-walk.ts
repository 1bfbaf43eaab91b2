/**
 * The pure half of reading the event log: laying a response out by position, checking its order,
 * walking pages past the cursor's floor so that each event is handed out exactly once, and
 * handing the pages to their consumer (src/sweeper/poller.ts does the requests).
 *
 * The spec does not say how the log is ordered (4.6). A platform listing events as they arrive
 * puts a client SDK's late batch, stamped earlier, after events stamped later: such disorder is
 * counted, never taken for a log served the other way round (that failed every run on the page
 * holding it). Which events are new is decided by the window (timestamps and identity counts),
 * so an event listed up to the lookback behind the newest one read is handed out once; one
 * listed later than that is older than the window: no rule acts on it (as when it lands behind
 * the cursor of a log kept in timestamp order), and it is passed on as `late` for its exposures.
 */
import type { Cursor } from '../state/sweep-cursor.js';
import { eventHash, eventTime } from './identity.js';
import { loggedNoEarlierThan } from './implausible-stamps.js';
import { observe } from './observation.js';
import { type RecentWindow, windowOf } from './recent.js';
import type { EventLike, EventOrder } from './types.js';

export interface NewEvent {
  event: EventLike;
  /** `<hash>.<occurrence>`: stable across runs. */
  id: string;
  ts: number;
  position: number;
  /**
   * Stamped implausibly far behind the events listed before it: it was logged after this
   * (src/sweeper/implausible-stamps.ts), and its exposures count as seen no earlier.
   */
  loggedAfter?: number;
}

export interface PolledPage {
  newEvents: NewEvent[];
  /**
   * Listed after events stamped later and older than the window: not handed out (no rule acts on
   * them), only for recording exposures (a maximum: reading one twice changes nothing).
   */
  late: NewEvent[];
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
  /** See `Cursor.historyEnd`: while set, a silence in the events read starts observation again. */
  historyEnd: number | null;
  /** Events stamped after this are left for a later walk (the late-exposure walk's edge). */
  until: number;
  /** A page held an event stamped after `until`: the walk has read as far as it goes. */
  reachedUntil: boolean;
  /** The run's time plus the skew allowance: a stamp past it is a client's clock, not the walk's edge. */
  present: number;
  /** Events listed after one stamped later; `tooLate`: of those, the ones older than the window. */
  outOfOrder: number;
  tooLate: number;
  /** The furthest any of them was stamped behind the newest event listed before it (ms). */
  mostBehindMs: number;
  /** The cursor's position: disorder is counted from there on (what lies before was counted). */
  unseenFrom: number;
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

/**
 * A walk from `read`, which begins before the cursor's floor (or at the log's oldest event).
 * `gap`: the log's oldest event is newer than the newest one processed, so events may have
 * expired unread; our observation of exposures then starts again, as on a first run, from the
 * events this walk reads (`observe`).
 */
export function startWalk(
  cursor: Cursor,
  read: ReadPage,
  horizon: number,
  gap = false,
  until = Number.POSITIVE_INFINITY,
  present = horizon,
): Walk {
  const window = windowOf(cursor);
  if (window.boundaryTs !== null && window.boundaryTs > horizon) {
    // Stored by a version that let a future-stamped event move the boundary: every event since
    // was skipped. Read the log again from its start; what is remembered is not handed out
    // again, and the rest keeps its ids (the worker and the notification marks drop copies).
    window.floorTs = null;
    window.boundaryTs = null;
  }
  const restart = gap || cursor.observedSince === null;
  return {
    ...window,
    next: read.items[0]?.pos ?? 0,
    lastTs: Number.NEGATIVE_INFINITY,
    horizon,
    seen: new Map(),
    observedSince: restart ? null : cursor.observedSince,
    historyEnd: restart ? present : (cursor.historyEnd ?? null),
    until,
    reachedUntil: false,
    present,
    outOfOrder: 0,
    tooLate: 0,
    mostBehindMs: 0,
    unseenFrom: cursor.position,
  };
}

/**
 * The time an event is kept at; undefined when it is older than the window, `'late'` when it is
 * that and listed after one stamped later. An event listed after one stamped later is counted as
 * out of order (`lastTs` stays the newest read, up to the run's time: a client's clock ahead says
 * nothing of the order), and, older than the window, as too late. A timestamp that does not parse
 * says nothing of order or age: such an event is neither checked for order nor taken for older
 * than the window (it might be a late one), and whether it is new is its identity's count alone.
 * (Read again after the window moved on, it is handed out again under the same id, which the
 * worker and the notification marks drop.)
 */
function placeInTime(item: { pos: number; ts: number }, walk: Walk): number | 'late' | undefined {
  if (Number.isNaN(item.ts)) return stampOfUnparsable(walk);
  const behind = walk.lastTs - item.ts;
  if (behind <= 0 && item.ts <= walk.present) walk.lastTs = item.ts;
  const older = walk.floorTs !== null && item.ts < walk.floorTs;
  // Counted once: the events before the cursor's position were counted by the run that read them.
  if (behind > 0 && item.pos >= walk.unseenFrom) {
    walk.outOfOrder++;
    if (older) walk.tooLate++;
    walk.mostBehindMs = Math.max(walk.mostBehindMs, behind);
  }
  if (!older) return item.ts;
  return behind > 0 ? 'late' : undefined;
}

/**
 * Whether an event is stamped after the walk's edge: left unseen (the next walk starts before its
 * floor, so reads it again as new), and the walk has read as far as it goes. A stamp past the
 * run's time is a client's clock, not the edge: listed by arrival, it would stop the walk at its
 * page until that time (the sweeper's walk handed it out).
 */
function pastUntil(ts: number, walk: Walk): boolean {
  if (ts <= walk.until) return false;
  if (ts <= walk.present) walk.reachedUntil = true;
  return true;
}

/**
 * Where an event whose timestamp does not parse is kept: the newest of the time read before it
 * and the window's floor, so the window holds it while it may be read again.
 */
function stampOfUnparsable(walk: Walk): number {
  return Math.max(walk.lastTs, walk.floorTs ?? walk.boundaryTs ?? 0);
}

/**
 * The events of `read` not handed out before (by this run or an earlier one), advancing `walk`
 * past every event of the page. From the floor on, identity counts keep events exact (equal
 * timestamps, late events, future-stamped ones): neither lost nor doubled.
 */
export function takeNewEvents(read: ReadPage, walk: Walk): { newEvents: NewEvent[]; late: NewEvent[] } {
  const newEvents: NewEvent[] = [];
  const late: NewEvent[] = [];
  for (const item of read.items) {
    if (item.pos < walk.next) continue;
    const after = loggedNoEarlierThan(item.ts, walk.lastTs);
    const loggedAfter = after === undefined ? {} : { loggedAfter: after };
    const ts = placeInTime(item, walk);
    // Older than the window: processed, or (listed after later ones) too late for the rules.
    if (ts === 'late' && item.ts <= walk.until) {
      const id = `${eventHash(item.event)}.late`;
      late.push({ event: item.event, id, ts: item.ts, position: item.pos, ...loggedAfter });
    }
    if (typeof ts !== 'number' || pastUntil(ts, walk)) continue;
    const hash = eventHash(item.event);
    const occurrence = walk.seen.get(hash) ?? 0;
    walk.seen.set(hash, occurrence + 1);
    if (occurrence < (walk.kept.get(hash)?.count ?? 0)) continue; // processed on an earlier run
    walk.kept.set(hash, { ts, count: occurrence + 1 });
    const newestBefore = walk.boundaryTs;
    // A client clock far ahead must not move the boundary: later events would land behind it.
    if (ts <= walk.horizon && (walk.boundaryTs === null || ts > walk.boundaryTs)) walk.boundaryTs = ts;
    if (!Number.isNaN(item.ts)) observe(walk, item.ts, newestBefore);
    newEvents.push({
      event: item.event,
      id: `${hash}.${occurrence}`,
      ts,
      position: item.pos,
      ...loggedAfter,
    });
  }
  const highest = read.items.at(-1)?.pos;
  if (highest !== undefined && highest >= walk.next) walk.next = highest + 1;
  return { newEvents, late };
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
