/**
 * Reading the event log from where the cursor stands, whichever order the API serves it in.
 *
 * `GET /events` has no time filter and its order is unspecified, so the poller works in
 * *positions* counted from the oldest event (stable while the log only grows) and maps them
 * to pages for the order at hand: oldest-first page q holds positions (q-1)·L …; newest-first
 * page q holds N-1-(q-1)·L downwards, N being `totalItems` of that very response. A run
 * starts at the page holding the last processed event (one page of overlap), reads towards
 * the newest, and hands out the unseen events page by page in ascending position order.
 * Cost: ceil(k/L) + 2 requests for k new events, whatever the history.
 *
 * Positions are only a guide. Which events are new is decided by the cursor's timestamp
 * boundary and identity counts, so a shifted page (events arriving mid-run, old events
 * expiring: the walk follows a shrinking `totalItems`) costs a re-read, never a lost or doubled
 * event. The order is detected from the
 * timestamps of the first page (or the policy's override) and verified on every page.
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
  const { cache, pageOf, fetchPage, detect, pageContaining } = reader;
  const until = options.until ?? Number.POSITIVE_INFINITY;
  const present = (options.now ?? clock()) + MAX_CLOCK_SKEW_MS;
  const horizon = Math.min(present, until);
  let warnedTrim = false;
  const passedUnread = options.passedUnread ?? 'observation of exposures starts again';

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

  /**
   * The page meant to hold `walk.next` ended before it: the API served fewer events than the
   * page size it reports. Reading it again serves the same, so the walk moves on to the next
   * page's first position (what the page lacks cannot be read); when the layout moved instead,
   * the scan fails rather than guess (the next run starts again from the cursor). The events
   * passed unread may hold exposures (an API that caps `limit` but reports the one asked for
   * serves every page short): like a gap of expired events, observation starts again after them.
   */
  function passShortPage(read: ReadPage, walk: Walk, o: EventOrder): void {
    const following =
      o === 'oldest-first' ? read.page * layout.size : layout.total - (read.page - 1) * layout.size;
    if (read.page !== pageOf(walk.next, o) || read.total !== layout.total || following <= walk.next)
      throw new Error(`the event log reader made no progress at position ${walk.next} of ${layout.total}`);
    options.logger.warn(`GET /events served a short page; moving past it: ${passedUnread}`, {
      page: read.page,
      served: read.items.length,
      itemsPerPage: layout.size,
      skipped: following - walk.next,
    });
    walk.next = following;
    // Observation starts again from the next event read: what follows is history again.
    walk.observedSince = null;
    walk.historyEnd = walk.present;
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
    for (;;) {
      const before = walk.next;
      const { newEvents, late } = takeNewEvents(read, walk);
      countDisorder(walk);
      if (walk.next === before && walk.next < layout.total) {
        // An empty page says nothing of where its events went: fail, and read again next run.
        if (read.items.length === 0)
          throw new Error(`GET /events served an empty page for position ${walk.next} of ${layout.total}`);
        passShortPage(read, walk, o);
      }
      commit(walk);
      yield { newEvents, late, cursor: structuredClone(state), page: read.page };
      if (walk.next >= layout.total || walk.reachedUntil) return CAUGHT_UP;
      read = await pageAfter(walk, o);
    }
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
