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
 * expiring) costs a re-read, never a lost or doubled event. The order is detected from the
 * timestamps of the first page (or the policy's override) and verified on every page.
 */
import type { Logger } from '../observability/logger.js';
import { type Cursor, EMPTY_CURSOR } from '../state/sweep-cursor.js';
import { EventOrderError } from './errors.js';
import {
  layOut,
  orderOf,
  type PollEnd,
  type PolledPage,
  type ReadPage,
  type StopReason,
  startWalk,
  takeNewEvents,
  verifyOrder,
  type Walk,
} from './event-walk.js';
import type { EventOrder, EventsSource } from './types.js';

export interface PollStats {
  requests: number;
  pagesRead: number;
  eventsRead: number;
  rereads: number;
  order: EventOrder | 'unknown';
}

export interface PollerOptions {
  events: EventsSource;
  /** The `limit` asked for; the API may apply a smaller one (`itemsPerPage`). */
  pageSize: number;
  /** The policy's `sweeper.eventOrder`. */
  order: 'auto' | EventOrder;
  cursor: Cursor | undefined;
  /** Epoch ms: no request starts after it. */
  deadline: number;
  clock?: () => number;
  maxPages?: number;
  logger: Logger;
}

/** What the poller knows about the log's layout: it changes with every response. */
interface Layout {
  /** Undefined until detected (or configured). */
  order: EventOrder | undefined;
  /** The page size the API applied last. */
  size: number;
  /** `totalItems` of the last response. */
  total: number;
  /** The `limit` we ask for (lowered when the API refuses it). */
  limit: number;
}

/** A scan that cannot go on for a reason that is not a failure: the deadline or the page budget. */
class PollStopped extends Error {
  constructor(readonly reason: Exclude<StopReason, 'caught-up'>) {
    super(`poll stopped: ${reason}`);
  }
}

const CAUGHT_UP: PollEnd = { caughtUp: true, stop: 'caught-up' };

/**
 * Re-reads of one position when the layout moved under us (page size or log length not what we
 * assumed). Each re-read aims with what the previous response taught; a log that keeps moving
 * after six is served wrong, and the page at hand is used (the boundary keeps events exact).
 */
const MAX_REAIMS = 6;
/**
 * Steps back (doubling) to reach a page that begins before the boundary timestamp: 2^40 events
 * is beyond any log, so the bound only guards against an API that never answers consistently.
 */
const MAX_STEPS_BACK = 40;
/** The smallest page size we fall back to when the API refuses our `limit` (the spec names no maximum). */
const MIN_LIMIT = 10;

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
  };
  const cache = new Map<number, ReadPage>();
  const maxPages = options.maxPages ?? 100_000;

  const pageOf = (pos: number, o: EventOrder) =>
    o === 'oldest-first'
      ? Math.floor(pos / layout.size) + 1
      : Math.floor(Math.max(0, layout.total - 1 - pos) / layout.size) + 1;

  /** One `GET /events` page; a refused `limit` is lowered and asked again, our own deadline stops cleanly. */
  async function list(page: number): Promise<Awaited<ReturnType<EventsSource['list']>>> {
    for (;;) {
      try {
        return await options.events.list({ page, limit: layout.limit }, { deadline: options.deadline });
      } catch (error) {
        // A request cut short by our own deadline is a clean stop, not a failure.
        if (clock() >= options.deadline) throw new PollStopped('time');
        if ((error as { status?: unknown }).status !== 400 || layout.limit <= MIN_LIMIT) throw error;
        layout.limit = Math.max(MIN_LIMIT, Math.floor(layout.limit / 10));
        options.logger.warn('GET /events refused the page size; asking for less', { limit: layout.limit });
        stats.requests++;
      }
    }
  }

  /** Fetches page `page` as served now; positions need the order, so `o` may be a guess. */
  async function fetchPage(page: number, o: EventOrder | undefined): Promise<ReadPage> {
    const cached = cache.get(page);
    if (cached && cached.total === layout.total && o !== undefined) return cached;
    if (clock() >= options.deadline) throw new PollStopped('time');
    if (stats.pagesRead >= maxPages) throw new PollStopped('max-pages');
    const response = await list(page);
    stats.requests++;
    stats.pagesRead++;
    stats.eventsRead += response.data.length;
    layout.total = response.pagination.totalItems;
    const applied = response.pagination.itemsPerPage;
    layout.size = Math.max(applied > 0 ? applied : layout.limit, response.data.length, 1);
    const read = layOut(response.data, page, layout.size, layout.total, o ?? 'oldest-first');
    if (o !== undefined) {
      verifyOrder(read, o);
      cache.set(page, read);
    }
    return read;
  }

  /** Page 1 decides the order: timestamps going down mean newest-first. */
  async function detect(): Promise<EventOrder> {
    const first = await fetchPage(1, undefined);
    // `items` were laid out as oldest-first, i.e. in the order served.
    const times = first.items.map((i) => i.ts).filter((t) => !Number.isNaN(t));
    let detected = orderOf(times[0], times.at(-1));
    if (!detected && first.total > first.items.length) {
      const last = await fetchPage(Math.ceil(first.total / layout.size), undefined);
      detected = orderOf(times[0], last.items.find((i) => !Number.isNaN(i.ts))?.ts);
    }
    stats.order = detected ?? 'unknown';
    options.logger.info('event order detected', { order: stats.order, totalItems: first.total });
    // One page (or one timestamp): the order changes nothing; read as oldest-first, remember nothing.
    if (!detected) {
      cache.set(1, first);
      return 'oldest-first';
    }
    state.order = detected;
    // Re-lay page 1 in the detected order so the scan can reuse it.
    const served = first.items.map((i) => i.event);
    const relaid = layOut(served, first.page, first.size, first.total, detected);
    verifyOrder(relaid, detected);
    cache.set(1, relaid);
    return detected;
  }

  /** The page that holds `pos`, re-reading when the layout moved under us (bounded). */
  async function pageContaining(target: number, o: EventOrder): Promise<ReadPage> {
    let pos = target;
    let read = await fetchPage(pageOf(pos, o), o);
    for (let attempt = 0; attempt < MAX_REAIMS; attempt++) {
      if (layout.total === 0) return read;
      // The log is shorter than we thought (old events expired): aim at its newest event.
      if (pos >= layout.total) pos = layout.total - 1;
      const low = read.items[0]?.pos;
      const high = read.items.at(-1)?.pos;
      if (low !== undefined && high !== undefined && low <= pos && pos <= high) return read;
      // The page size or the log's length was not what we assumed: aim again with what we learnt.
      const again = pageOf(pos, o);
      cache.delete(again);
      stats.rereads++;
      read = await fetchPage(again, o);
    }
    return read;
  }

  /**
   * The page to start from: the one with the last processed event, and earlier still until the
   * page begins before the boundary timestamp (every event at that timestamp must be counted from
   * the first one).
   */
  async function startPage(o: EventOrder): Promise<ReadPage> {
    let read = await pageContaining(
      state.boundaryTs === null ? 0 : Math.max(0, Math.min(state.position, layout.total) - 1),
      o,
    );
    for (let step = 0, back = 1; state.boundaryTs !== null && step < MAX_STEPS_BACK; step++, back *= 2) {
      const first = read.items[0];
      if (!first || first.pos === 0 || first.ts < state.boundaryTs) break;
      stats.rereads++;
      read = await pageContaining(Math.max(0, first.pos - back * layout.size), o);
    }
    return read;
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
    state.boundaryTs = walk.boundaryTs;
    state.boundaryCounts = Object.fromEntries(walk.processedAtBoundary);
    state.observedSince = walk.observedSince;
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
    let read = await startPage(o);
    if (read.items.length === 0 && layout.total === 0) return CAUGHT_UP;
    const walk = startWalk(state, read);
    for (;;) {
      const newEvents = takeNewEvents(read, walk);
      commit(walk);
      yield { newEvents, cursor: structuredClone(state), page: read.page };
      if (walk.next >= layout.total) return CAUGHT_UP;
      read = await nextPage(walk.next, o);
    }
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
