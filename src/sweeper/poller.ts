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
import { eventHash, eventTime } from './identity.js';
import type { EventLike, EventOrder, EventsSource } from './types.js';

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

export interface PollEnd {
  caughtUp: boolean;
  stop: 'caught-up' | 'time' | 'max-pages';
}

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

interface Positioned {
  event: EventLike;
  ts: number;
  pos: number;
}
interface ReadPage {
  page: number;
  total: number;
  size: number;
  /** Ascending position. */
  items: Positioned[];
}

class StopForTime extends Error {}

export function createPoller(options: PollerOptions) {
  const clock = options.clock ?? Date.now;
  const state: Cursor = structuredClone(options.cursor ?? EMPTY_CURSOR);
  let order: EventOrder | undefined = options.order === 'auto' ? state.order : options.order;
  // The size the API applied last time, unless we now ask for less (it may have capped our limit).
  let size = state.pageSize > 0 ? Math.min(state.pageSize, options.pageSize) : options.pageSize;
  let total = state.totalItems;
  const stats: PollStats = {
    requests: 0,
    pagesRead: 0,
    eventsRead: 0,
    rereads: 0,
    order: order ?? 'unknown',
  };
  const cache = new Map<number, ReadPage>();
  const maxPages = options.maxPages ?? 100_000;
  let limit = options.pageSize;

  const pageOf = (pos: number, o: EventOrder) =>
    o === 'oldest-first' ? Math.floor(pos / size) + 1 : Math.floor(Math.max(0, total - 1 - pos) / size) + 1;

  /** Fetches page `page` as served now; positions need the order, so `o` may be a guess. */
  async function fetchPage(page: number, o: EventOrder | undefined): Promise<ReadPage> {
    const cached = cache.get(page);
    if (cached && cached.total === total && o !== undefined) return cached;
    if (clock() >= options.deadline) throw new StopForTime();
    if (stats.pagesRead >= maxPages) throw new StopForTime('max-pages');
    let response: Awaited<ReturnType<EventsSource['list']>>;
    for (;;) {
      try {
        response = await options.events.list({ page, limit }, { deadline: options.deadline });
        break;
      } catch (error) {
        // A request cut short by our own deadline is a clean stop, not a failure.
        if (clock() >= options.deadline) throw new StopForTime();
        // The spec names no maximum `limit`: an API that refuses ours gets a smaller one.
        if ((error as { status?: unknown }).status === 400 && limit > 10) {
          limit = Math.max(10, Math.floor(limit / 10));
          options.logger.warn('GET /events refused the page size; asking for less', { limit });
          stats.requests++;
          continue;
        }
        throw error;
      }
    }
    stats.requests++;
    stats.pagesRead++;
    stats.eventsRead += response.data.length;
    total = response.pagination.totalItems;
    const applied = response.pagination.itemsPerPage;
    size = Math.max(applied > 0 ? applied : limit, response.data.length, 1);
    const read: ReadPage = { page, total, size, items: [] };
    const data = response.data;
    const effective = o ?? 'oldest-first';
    for (let j = 0; j < data.length; j++) {
      const event = data[j] as EventLike;
      const offset = (page - 1) * size + j;
      const pos = effective === 'oldest-first' ? offset : total - 1 - offset;
      read.items.push({ event, ts: eventTime(event), pos });
    }
    if (effective === 'newest-first') read.items.reverse();
    if (o !== undefined) {
      verifyOrder(read, o);
      cache.set(page, read);
    }
    return read;
  }

  function verifyOrder(read: ReadPage, o: EventOrder) {
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

  /** Page 1 decides the order: timestamps going down mean newest-first. */
  async function detect(): Promise<EventOrder> {
    const first = await fetchPage(1, undefined);
    const times = first.items.map((i) => i.ts).filter((t) => !Number.isNaN(t));
    let detected: EventOrder | undefined;
    // `items` were laid out as oldest-first, i.e. in the order served.
    const head = times[0];
    const tail = times.at(-1);
    if (head !== undefined && tail !== undefined && head !== tail) {
      detected = head < tail ? 'oldest-first' : 'newest-first';
    } else if (first.total > first.items.length) {
      const last = await fetchPage(Math.ceil(first.total / size), undefined);
      const lastTime = last.items.find((i) => !Number.isNaN(i.ts))?.ts;
      if (head !== undefined && lastTime !== undefined && head !== lastTime)
        detected = head < lastTime ? 'oldest-first' : 'newest-first';
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
    const relaid = relayPage(first, detected);
    verifyOrder(relaid, detected);
    cache.set(1, relaid);
    return detected;
  }

  function relayPage(read: ReadPage, o: EventOrder): ReadPage {
    if (o === 'oldest-first') return read;
    const served = read.items.map((i) => i.event);
    const items = served.map((event, j) => ({
      event,
      ts: eventTime(event),
      pos: read.total - 1 - ((read.page - 1) * read.size + j),
    }));
    return { ...read, items: items.reverse() };
  }

  /** The page that holds `pos`, re-reading when the layout moved under us (bounded). */
  async function pageContaining(target: number, o: EventOrder): Promise<ReadPage> {
    let pos = target;
    let read = await fetchPage(pageOf(pos, o), o);
    for (let attempt = 0; attempt < 6; attempt++) {
      if (total === 0) return read;
      // The log is shorter than we thought (old events expired): aim at its newest event.
      if (pos >= total) pos = total - 1;
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

  async function* scan(): AsyncGenerator<PolledPage, PollEnd> {
    const o = order ?? (await detect());
    order = o;
    stats.order = o;
    state.order = options.order === 'auto' ? (state.order ?? undefined) : o;
    if (o === 'newest-first' && !cache.has(1)) await fetchPage(1, o); // learn N before jumping

    // Start at the last processed event, and earlier still until the page begins before the
    // boundary timestamp: every event at that timestamp must be counted from the first one.
    let start = state.boundaryTs === null ? 0 : Math.max(0, Math.min(state.position, total) - 1);
    let back = 1;
    let read = await pageContaining(start, o);
    if (read.items.length === 0 && total === 0) return { caughtUp: true, stop: 'caught-up' };
    for (let tries = 0; state.boundaryTs !== null && tries < 40; tries++) {
      const first = read.items[0];
      if (!first || first.pos === 0 || first.ts < state.boundaryTs) break;
      start = Math.max(0, first.pos - back * size);
      back *= 2;
      stats.rereads++;
      read = await pageContaining(start, o);
    }

    let next = read.items[0]?.pos ?? 0;
    let lastTs = Number.NEGATIVE_INFINITY;
    // Working copies, committed to `state` only when a whole page is taken into account.
    let boundaryTs = state.boundaryTs;
    let processedAtBoundary = new Map(Object.entries(state.boundaryCounts));
    const seenAtBoundary = new Map<string, number>();
    let observedSince = state.observedSince;
    for (;;) {
      const newEvents: NewEvent[] = [];
      for (const item of read.items) {
        if (item.pos < next) continue;
        // Unparsable timestamps cannot be ordered: keep them with their neighbours' time.
        const ts = Number.isNaN(item.ts) ? Math.max(lastTs, boundaryTs ?? 0) : item.ts;
        if (ts < lastTs)
          throw new EventOrderError(`events at positions ${item.pos - 1} and ${item.pos} are out of order`);
        lastTs = ts;
        if (boundaryTs !== null && ts < boundaryTs) continue; // older than the cursor: processed
        const hash = eventHash(item.event);
        if (boundaryTs === null || ts > boundaryTs) {
          boundaryTs = ts;
          seenAtBoundary.clear();
          processedAtBoundary = new Map();
        }
        const occurrence = seenAtBoundary.get(hash) ?? 0;
        seenAtBoundary.set(hash, occurrence + 1);
        if (occurrence < (processedAtBoundary.get(hash) ?? 0)) continue; // processed on an earlier run
        processedAtBoundary.set(hash, occurrence + 1);
        if (!Number.isNaN(item.ts)) observedSince = Math.min(observedSince ?? item.ts, item.ts);
        newEvents.push({ event: item.event, id: `${hash}.${occurrence}`, ts, position: item.pos });
      }
      const highest = read.items.at(-1)?.pos;
      if (highest !== undefined && highest >= next) next = highest + 1;
      state.boundaryTs = boundaryTs;
      state.boundaryCounts = Object.fromEntries(processedAtBoundary);
      state.observedSince = observedSince;
      state.position = next;
      state.pageSize = size;
      state.totalItems = total;
      yield { newEvents, cursor: structuredClone(state), page: read.page };
      if (next >= total) return { caughtUp: true, stop: 'caught-up' };
      read = await pageContaining(next, o);
      if (read.items.length === 0 && next < total)
        throw new Error(`GET /events served an empty page for position ${next} of ${total}`);
      const low = read.items[0]?.pos;
      if (low !== undefined && low > next)
        options.logger.warn('event log moved under the poller', { expected: next, got: low });
    }
  }

  const stopped = (error: StopForTime): PollEnd => ({
    caughtUp: false,
    stop: error.message === 'max-pages' ? 'max-pages' : 'time',
  });

  return {
    stats,
    /** Pages of unseen events, oldest first; the return value says whether the log was caught up. */
    async *pages(): AsyncGenerator<PolledPage, PollEnd> {
      try {
        return yield* scan();
      } catch (error) {
        if (error instanceof StopForTime) return stopped(error);
        // An order that changed since the last run (or a wrong guess): detect again, once.
        if (error instanceof EventOrderError && options.order === 'auto') {
          options.logger.warn('event order changed; detecting it again', { error: error.message });
          order = undefined;
          state.order = undefined;
          cache.clear();
          try {
            return yield* scan();
          } catch (again) {
            if (again instanceof StopForTime) return stopped(again);
            throw again;
          }
        }
        throw error;
      }
    },
  };
}
