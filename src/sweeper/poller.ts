/**
 * Reading the event log from where the cursor stands, whichever order the API serves it in.
 *
 * `GET /events` has no time filter and its order is unspecified, so the poller works in
 * *positions* counted from the oldest event (stable while the log only grows) and maps them
 * to pages for the order at hand: oldest-first page q holds positions (q-1)·L …; newest-first
 * page q holds N-1-(q-1)·L downwards, N being `totalItems` of that very response. A run
 * starts at the page holding the last processed event (one page of overlap), reads towards
 * the newest, and hands out the unseen events page by page in ascending position order.
 *
 * Positions are only a guide: which events are new is decided by the cursor's boundary and
 * identity counts, and a log that moved while the run read (old events expiring, even as fast as
 * new ones arrive) is found by the events seen, not positions (src/sweeper/shift-check.ts): the
 * run's span is read again newest first and what slid under the walk is handed out, not lost.
 * Cost: at most ceil(k/L) + 3 requests for k new events when nothing moved (the last is the
 * shift check, made when the run read a page after its first), about twice that when it moved.
 * Guaranteed: a run that reaches the log's end hands out what slid under it; one stopped by its
 * page budget checks with the last page it keeps for that, and a moved log (like a reading again
 * cut short) starts observation again, so a config used only in what slid past is never judged
 * from it. Not guaranteed: a run stopped by its deadline is not checked (no request is left),
 * nor one whose budget ends on the page after its first; late events inserted below the first
 * page's newest event, as many as expired, hide a move from the check.
 * The order is detected from the first page's timestamps (or the policy's override), verified
 * on every page.
 */
import type { Logger } from '../observability/logger.js';
import { type Cursor, EMPTY_CURSOR } from '../state/sweep-cursor.js';
import { EventOrderError } from './errors.js';
import {
  type PollEnd,
  type PolledPage,
  type ReadPage,
  startWalk,
  takeNewEvents,
  type Walk,
} from './event-walk.js';
import { createPageReader, type Layout, type PollStats, PollStopped } from './page-reader.js';
import { MAX_CLOCK_SKEW_MS, settle, storedWindow, windowOf } from './recent.js';
import { createShiftCheck } from './shift-check.js';
import type { EventOrder, EventsSource } from './types.js';

export interface PollerOptions {
  events: EventsSource;
  /** The `limit` asked for; the API may apply a smaller one (`itemsPerPage`). */
  pageSize: number;
  /** The policy's `sweeper.eventOrder`. */
  order: 'auto' | EventOrder;
  cursor: Cursor | undefined;
  /** Epoch ms: no request starts after it. */
  deadline: number;
  /** The run's time (default: the clock): the boundary never moves past it plus a skew allowance. */
  now?: number;
  clock?: () => number;
  maxPages?: number;
  /** Epoch ms: events stamped after it are not handed out, and the scan ends at the first page past it. */
  until?: number;
  /**
   * What events passed unread (expired before they were read, or lacking from a short page) mean
   * for this walk, said in its warning. @default the sweeper's walk: observation starts again
   */
  passedUnread?: string;
  logger: Logger;
}

const CAUGHT_UP: PollEnd = { caughtUp: true, stop: 'caught-up' };

/**
 * Steps back (doubling) to reach a page that begins before the boundary timestamp: 2^40 events
 * is beyond any log, so the bound only guards against an API that never answers consistently.
 */
const MAX_STEPS_BACK = 40;

export type { PollStats } from './page-reader.js';

export function createPoller(options: PollerOptions) {
  const clock = options.clock ?? Date.now;
  const state: Cursor = structuredClone(options.cursor ?? EMPTY_CURSOR);
  const layout: Layout = {
    order: options.order === 'auto' ? state.order : options.order,
    // The size the API applied last time, unless we now ask for less (it may have capped our limit).
    size: state.pageSize > 0 ? Math.min(state.pageSize, options.pageSize) : options.pageSize,
    total: state.totalItems,
    limit: options.pageSize,
  };
  const stats: PollStats = {
    requests: 0,
    pagesRead: 0,
    eventsRead: 0,
    rereads: 0,
    order: layout.order ?? 'unknown',
    outOfOrder: 0,
    tooLate: 0,
    unreadableEvents: 0,
  };
  const reader = createPageReader(
    { ...options, clock, maxPages: options.maxPages ?? 100_000 },
    layout,
    stats,
    state,
  );
  const { cache, pageOf, fetchPage, detect, pageContaining, fits, passShortPage, servedAs } = reader;
  const until = options.until ?? Number.POSITIVE_INFINITY;
  const present = (options.now ?? clock()) + MAX_CLOCK_SKEW_MS;
  const horizon = Math.min(present, until);
  let warnedTrim = false;
  const passedUnread = options.passedUnread ?? 'observation of exposures starts again';
  // A cached page is the log as it stood: a moved log is read as it stands now.
  const readFresh = (pos: number, o = layout.order ?? 'oldest-first') => {
    cache.delete(pageOf(pos, o));
    return pageContaining(pos, o);
  };
  const shiftDeps = { readFresh, servedAs, stats, logger: options.logger, passedUnread };
  let shifts = createShiftCheck(shiftDeps);

  /**
   * The page to start from: the one with the last processed event, and earlier still until the
   * page begins before the floor (every event from there on is counted from the first one).
   * A cursor whose boundary lies beyond the horizon is read again from the start (startWalk).
   */
  async function startPage(o: EventOrder): Promise<{ read: ReadPage; gap: boolean }> {
    const window = windowOf(state);
    const { boundaryTs } = window;
    const poisoned = boundaryTs !== null && boundaryTs > horizon;
    // A window kept at a larger page size than today's would cost more re-reads than a run
    // may afford (its page budget): bound it by today's page first.
    if (!poisoned) {
      settle(window, layout.size);
      Object.assign(state, storedWindow(window));
    }
    const floorTs = window.floorTs;
    const floor = poisoned ? null : floorTs;
    let read = await pageContaining(
      floor === null ? 0 : Math.max(0, Math.min(state.position, layout.total) - 1),
      o,
    );
    for (let step = 0, back = 1; floor !== null && step < MAX_STEPS_BACK; step++, back *= 2) {
      const first = read.items[0];
      if (!first || first.pos === 0 || first.ts < floor) break;
      stats.rereads++;
      read = await pageContaining(Math.max(0, first.pos - back * layout.size), o);
    }
    // The oldest event served is newer than the newest processed: events after ours may have
    // expired unread, and exposures in them were never observed.
    const first = read.items[0];
    const gap = !poisoned && boundaryTs !== null && first?.pos === 0 && first.ts > boundaryTs;
    if (gap)
      options.logger.warn(
        `the oldest event served is newer than the last one read: events may have expired unread; ${passedUnread}`,
        {
          boundaryTs,
          oldestServed: first?.ts,
        },
      );
    return { read, gap };
  }

  /** The page after `walk.next`, which must hold events while the log says there are more. */
  async function nextPage(next: number, o: EventOrder): Promise<ReadPage> {
    const read = await pageContaining(next, o);
    if (read.items.length === 0 && next < layout.total)
      throw new Error(`GET /events served an empty page for position ${next} of ${layout.total}`);
    const low = read.items[0]?.pos;
    if (low !== undefined && low > next)
      options.logger.warn('event log moved under the poller', { expected: next, got: low });
    return read;
  }

  function commit(walk: Walk): void {
    const trimmed = settle(walk, layout.size);
    if (!warnedTrim && (trimmed.windowCut || trimmed.aheadDropped > 0 || trimmed.boundaryDropped > 0)) {
      warnedTrim = true;
      options.logger.warn('the cursor keeps fewer recent events than its lookback asks (bounded item)', {
        floorTs: walk.floorTs,
        boundaryTs: walk.boundaryTs,
        futureEventsForgotten: trimmed.aheadDropped,
        boundaryEventsReadAgain: trimmed.boundaryDropped,
      });
    }
    Object.assign(state, storedWindow(walk));
    state.observedSince = walk.observedSince;
    state.historyEnd = walk.historyEnd;
    state.position = walk.next;
    state.pageSize = layout.size;
    state.totalItems = layout.total;
  }

  async function* scan(): AsyncGenerator<PolledPage, PollEnd> {
    const o = layout.order ?? (await detect());
    layout.order = o;
    stats.order = o;
    state.order = options.order === 'auto' ? (state.order ?? undefined) : o;
    if (o === 'newest-first' && !cache.has(1)) await fetchPage(1, o); // learn N before jumping
    const start = await startPage(o);
    let read = start.read;
    if (read.items.length === 0 && layout.total === 0) return CAUGHT_UP;
    const walk = startWalk(state, read, horizon, start.gap, until, present);
    shifts = createShiftCheck(shiftDeps); // a scan again from scratch (order detected again) checks its own walk
    for (;;) {
      const before = walk.next;
      shifts.pass(read, walk.next);
      const { newEvents, late } = takeNewEvents(read, walk);
      countDisorder(walk);
      if (walk.next === before && walk.next < layout.total) {
        // An empty page says nothing of where its events went: fail, and read again next run.
        if (read.items.length === 0)
          throw new Error(`GET /events served an empty page for position ${walk.next} of ${layout.total}`);
        passShortPage(read, walk, o, passedUnread);
      }
      commit(walk);
      yield { newEvents, late, cursor: structuredClone(state), page: read.page };
      const end = endAfter(walk);
      if (end) return yield* finish(walk, read.page, end);
      read = await pageAfter(walk, o);
    }
  }

  /** Where the walk ends after its page: the log's end, or short of it while the shift check fits. */
  function endAfter(walk: Walk): PollEnd | undefined {
    if (walk.next >= layout.total || walk.reachedUntil) return CAUGHT_UP;
    // The check takes the last request of the page budget: reading on would leave it none.
    return shifts.pending() && !fits(2) ? { caughtUp: false, stop: 'max-pages' } : undefined;
  }

  /** The walk's end, or where it stops short: what slid under it (src/sweeper/shift-check.ts). */
  async function* finish(walk: Walk, page: number, end: PollEnd): AsyncGenerator<PolledPage, PollEnd> {
    const settled = await shifts.settle(walk, end.caughtUp);
    if (!settled) return end;
    commit(walk);
    yield { newEvents: settled.newEvents, late: [], cursor: structuredClone(state), page };
    return settled.stop ? { caughtUp: false, stop: settled.stop } : end;
  }

  /**
   * The page after the walk. Old events that expired while this run read moved every position
   * down by as many, the unread ones just past the walk too: the walk follows a shrinking
   * `totalItems` (events arriving at the same moment hide a shrink; then only the lookback helps).
   */
  async function pageAfter(walk: Walk, o: EventOrder): Promise<ReadPage> {
    const total = layout.total;
    const read = await nextPage(walk.next, o);
    const expired = total - layout.total;
    if (expired <= 0) return read;
    walk.next = Math.max(0, walk.next - expired);
    const low = read.items[0]?.pos;
    return low === undefined || low > walk.next ? nextPage(walk.next, o) : read;
  }

  /**
   * Events listed after ones stamped later (src/sweeper/event-walk.ts): counted for the run's
   * summary, and a warning once a scan when some were too late for the event rules.
   */
  let warnedLate = false;
  function countDisorder(walk: Walk): void {
    if (!warnedLate && walk.tooLate > stats.tooLate) {
      warnedLate = true;
      options.logger.warn(
        'GET /events listed events after ones stamped later, older than the lookback: no event rule acts on them',
        { tooLate: walk.tooLate, outOfOrder: walk.outOfOrder, mostBehindMs: walk.mostBehindMs },
      );
    }
    stats.outOfOrder = walk.outOfOrder;
    stats.tooLate = walk.tooLate;
  }

  /** A scan; when an order detected earlier turns out wrong (auto only), one more from scratch. */
  async function* scanDetectingOnce(): AsyncGenerator<PolledPage, PollEnd> {
    try {
      return yield* scan();
    } catch (error) {
      if (!(error instanceof EventOrderError) || options.order !== 'auto') throw error;
      options.logger.warn('event order changed; detecting it again', { error: error.message });
      layout.order = undefined;
      state.order = undefined;
      cache.clear();
      return yield* scan();
    }
  }

  return {
    stats,
    /** Pages of unseen events, oldest first; the return value says whether the log was caught up. */
    async *pages(): AsyncGenerator<PolledPage, PollEnd> {
      try {
        return yield* scanDetectingOnce();
      } catch (error) {
        if (error instanceof PollStopped) return { caughtUp: false, stop: error.reason };
        throw error;
      }
    },
  };
}
