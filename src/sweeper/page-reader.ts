/**
 * Reading pages of `GET /events` for the poller (src/sweeper/poller.ts): one request with its
 * deadline and a refused `limit` lowered, the page laid out by position and its order verified,
 * the order detected from page 1, and the page holding a position found again when the log's
 * layout (page size, length) moved under us, a page shorter than it says passed, and whether more
 * requests fit the run's page budget. Pages read in the current layout are cached.
 */
import { unreadableEvent } from '../console/schemas/events.js';
import type { Logger } from '../observability/logger.js';
import type { Cursor } from '../state/sweep-cursor.js';
import { EventOrderError } from './errors.js';
import { orderOf, servedOrder, verifyOrder } from './event-order.js';
import { layOut, type ReadPage, type StopReason, type Walk } from './event-walk.js';
import type { EventLike, EventOrder, EventsSource } from './types.js';

export interface PollStats {
  requests: number;
  pagesRead: number;
  eventsRead: number;
  rereads: number;
  order: EventOrder | 'unknown';
  /** Events listed after one stamped later (late batches, listed by arrival); `tooLate`: older than the window. */
  outOfOrder: number;
  tooLate: number;
  /** Of the events read, elements with nothing to read (not records: null, a string, a list). */
  unreadableEvents: number;
}

/** What the poller knows about the log's layout: it changes with every response. */
export interface Layout {
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
export class PollStopped extends Error {
  constructor(readonly reason: Exclude<StopReason, 'caught-up'>) {
    super(`poll stopped: ${reason}`);
  }
}

/**
 * Re-reads of one position when the layout moved under us (page size or log length not what we
 * assumed). Each re-read aims with what the previous response taught; a log that keeps moving
 * after six is served wrong, and the page at hand is used (the boundary keeps events exact).
 */
const MAX_REAIMS = 6;
/** The smallest page size we fall back to when the API refuses our `limit` (the spec names no maximum). */
const MIN_LIMIT = 10;

export interface PageReaderOptions {
  events: EventsSource;
  /** Epoch ms: no request starts after it. */
  deadline: number;
  clock: () => number;
  maxPages: number;
  logger: Logger;
}

/** `layout` and `stats` are shared with the poller; `cursor.order` is set when the order is detected. */
export function createPageReader(
  options: PageReaderOptions,
  layout: Layout,
  stats: PollStats,
  cursor: Cursor,
) {
  const { clock, maxPages } = options;
  const cache = new Map<number, ReadPage>();
  // Which response each page is (the count of pages read then): the shift check asks whether a
  // page the walk passed was served after its first one (src/sweeper/shift-check.ts).
  const served = new WeakMap<ReadPage, number>();

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

  /**
   * Elements of a page that are not records read as empty ones and are passed by (src/console/
   * schemas/events.ts): counted for the run's summary, and a warning once a run, or an operator
   * asking why a rule did not fire would find a clean run. Nothing the client wrote is logged.
   */
  function countUnreadable(data: readonly EventLike[], page: number): void {
    const unreadable = data.filter(unreadableEvent).length;
    if (unreadable === 0) return;
    if (stats.unreadableEvents === 0)
      options.logger.warn(
        'GET /events listed elements that are not event records (nothing to read: no timestamp, name, ' +
          'source, user, value or metadata); no event rule or exposure reads them. The run summary counts ' +
          'them all (events.unreadableEvents): take it to the platform',
        { page, unreadableEvents: unreadable, eventsOnPage: data.length },
      );
    stats.unreadableEvents += unreadable;
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
    countUnreadable(response.data, page);
    layout.total = response.pagination.totalItems;
    const applied = response.pagination.itemsPerPage;
    layout.size = Math.max(applied > 0 ? applied : layout.limit, response.data.length, 1);
    const read = layOut(response.data, page, layout.size, layout.total, o ?? 'oldest-first');
    served.set(read, stats.pagesRead);
    if (o !== undefined) {
      await verify(read, o);
      cache.set(page, read);
    }
    return read;
  }

  /**
   * Fails when `read` is served in the other order than `o`. Listed by arrival, late batches can
   * make a page go mostly back (a tail page of three events, the last one late), and failing on
   * it would fail every run that reads it: page 1 (a full page, unless the whole log is shorter)
   * decides instead, and the page's disorder is the walk's to count (src/sweeper/event-walk.ts).
   */
  async function verify(read: ReadPage, o: EventOrder): Promise<void> {
    try {
      verifyOrder(read, o);
    } catch (error) {
      if (read.page === 1 || !(error instanceof EventOrderError)) throw error;
      await fetchPage(1, o); // verified in turn (or cached, verified when read)
    }
  }

  /**
   * Page 1 decides the order: timestamps going mostly down mean newest-first (mostly: a late
   * batch listed by arrival at either end of the page must not turn the order round).
   */
  async function detect(): Promise<EventOrder> {
    const first = await fetchPage(1, undefined);
    // `items` were laid out as oldest-first, i.e. in the order served.
    const times = first.items.map((i) => i.ts).filter((t) => !Number.isNaN(t));
    let detected = servedOrder(times);
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
    cursor.order = detected;
    // Re-lay page 1 in the detected order so the scan can reuse it.
    const events = first.items.map((i) => i.event);
    const relaid = layOut(events, first.page, first.size, first.total, detected);
    served.set(relaid, served.get(first) ?? 0);
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
      // Same page, same layout: it is short (fewer events than the page size); asking again
      // would serve it again. The scan moves past it.
      if (again === read.page && read.total === layout.total && read.size === layout.size) return read;
      cache.delete(again);
      stats.rereads++;
      read = await fetchPage(again, o);
    }
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
  function passShortPage(read: ReadPage, walk: Walk, o: EventOrder, passedUnread: string): void {
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

  /**
   * Whether `n` more requests fit the page budget. Not the deadline: how long the next request
   * takes is a guess, and keeping room for a slow one cost a run reading up to the deadline a
   * page it had the time for.
   */
  const fits = (n: number) => stats.pagesRead + n <= maxPages;

  /** Which response `read` is (counted from the run's first): later pages were served later. */
  const servedAs = (read: ReadPage) => served.get(read) ?? 0;

  return { cache, pageOf, fetchPage, detect, pageContaining, fits, passShortPage, servedAs };
}
