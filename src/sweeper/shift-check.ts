/**
 * Events that slid under the poller's forward walk (src/sweeper/poller.ts) while it read.
 *
 * The walk reads pages towards the newest event, each page starting right after the last one
 * read, so no response shows an event read before: when old events expire between two reads
 * (with a retention limit and steady traffic `totalItems` stays the same), the unread events
 * just past the walk slide onto the page it already read and no later read serves them. Seeing
 * that per page would cost a second request per page, so a run checks once, at its end: the
 * newest event of its first page must still hold its position (expiry always takes the oldest,
 * so any expiry below it moves or removes it). When it moved, the run's span is read again
 * newest first, from the last event passed down to that first one: read in that direction a
 * moving log only serves an event twice (realigned on the event read last), never skips one.
 * Events of the span the walk never passed are handed out then, after newer ones.
 *
 * A walk stopped by its page budget checks too, with the last request it keeps for that; with
 * none left to read its span again, a moved log starts observation of exposures again, as events
 * expired unread do (and so does a reading again that the deadline or budget cuts). Blind spots:
 * a walk stopped by its deadline is not checked (no request is left, and keeping one for the
 * check would cost every such run a page it had the time for); a budget that ends on the page
 * after the first leaves none either; and late events inserted below the first page's newest
 * event, as many as expired, bring it back to its position: the check sees nothing.
 *
 * The walk hashes the events it takes; those it passed are hashed here only when the log moved
 * (hashing each as it passed more than doubled the hashing of a run reading a long history).
 */
import type { Logger } from '../observability/logger.js';
import type { NewEvent, Positioned, ReadPage, StopReason, Walk } from './event-walk.js';
import { eventHash } from './identity.js';
import { PollStopped } from './page-reader.js';

interface Hashed {
  item: Positioned;
  hash: string;
}

export interface ShiftCheckDeps {
  /** The page holding `pos` as the log stands now: a request, never the cache. */
  readFresh: (pos: number) => Promise<ReadPage>;
  /** Which response a page is: pages served before the walk's first one cannot slide under it. */
  servedAs: (read: ReadPage) => number;
  stats: { rereads: number };
  logger: Logger;
  /** What events expired unread mean for this walk (the poller's `passedUnread`). */
  passedUnread: string;
}

/** What the end of a walk adds: events it missed, and why it stopped when reading them again did not fit. */
export interface Settled {
  newEvents: NewEvent[];
  stop?: Exclude<StopReason, 'caught-up'>;
}

/**
 * Pages read again newest first at most, beyond the span's own: a log moving faster than we
 * read would otherwise keep the descent going; what is left is the lookback's, as before.
 */
const MAX_DESCENT = 10_000;

export function createShiftCheck(deps: ShiftCheckDeps) {
  // The events the walk passed, by reference (the page cache holds them anyway): hashed on a move only.
  const walked: Positioned[] = [];
  let first: Positioned | undefined;
  let firstServed = 0;
  // A page the walk passed was served after its first one: the log may have moved in between.
  // (Pages served before it, stepping back from the cursor, were read newest first: no skip.)
  let servedLater = false;

  /** Items of `read` the walk passes (from `next` on): called before the walk takes them. */
  function pass(read: ReadPage, next: number): void {
    for (const item of read.items) if (item.pos >= next) walked.push(item);
    if (first === undefined) {
      first = read.items.at(-1);
      firstServed = deps.servedAs(read);
    } else if (deps.servedAs(read) > firstServed) servedLater = true;
  }

  /** Whether the log may have moved under the walk since its first page. */
  const pending = () => servedLater && first !== undefined && walked.length > 0;

  /** Whether the first page's newest event still holds its position: one request. */
  async function moved(anchor: Hashed): Promise<boolean> {
    deps.stats.rereads++;
    const probe = await deps.readFresh(anchor.item.pos);
    const at = probe.items.find((i) => i.pos === anchor.item.pos);
    return !at || eventHash(at.event) !== anchor.hash;
  }

  /**
   * The span from `top` down to `bottom` (exclusive) as the log stands now, oldest first, and
   * whether `bottom` was found (not: it expired, and the descent reached the oldest event).
   */
  async function descend(top: Hashed, bottom: Hashed): Promise<{ span: Hashed[]; foundBottom: boolean }> {
    const span: Hashed[] = []; // newest first while collected
    let foundTop = false;
    let marker: string | undefined; // the lowest event read: what slid onto the next page is a copy
    let read = await deps.readFresh(top.item.pos);
    for (let step = 0; step < MAX_DESCENT; step++) {
      const items = [...read.items].reverse().map((item) => ({ item, hash: eventHash(item.event) }));
      const copies = marker === undefined ? -1 : items.findIndex((i) => i.hash === marker);
      for (const entry of items.slice(copies + 1)) {
        if (entry.hash === bottom.hash) return { span: span.reverse(), foundBottom: true };
        if (entry.hash === top.hash) foundTop = true;
        // Newer than the last event passed: arrived during the run, the next run's to read.
        if (foundTop) span.push(entry);
      }
      const low = items.at(-1);
      if (!low || low.item.pos === 0) break;
      marker = low.hash;
      deps.stats.rereads++;
      read = await deps.readFresh(low.item.pos - 1);
    }
    return { span: span.reverse(), foundBottom: false };
  }

  /** Observation starts again after events that may have passed unread (the short page's way). */
  function restart(walk: Walk, message: string, context: Record<string, unknown>): void {
    deps.logger.warn(`${message}; ${deps.passedUnread}`, context);
    walk.observedSince = null;
    walk.historyEnd = walk.present;
  }

  /** The events of the span the walk never passed, as the log stands now. */
  async function missedBy(walk: Walk, anchor: Hashed, last: Hashed): Promise<Hashed[]> {
    const { span, foundBottom } = await descend(last, anchor);
    const passed = new Map<string, number>();
    for (const item of walked) {
      const hash = eventHash(item.event);
      passed.set(hash, (passed.get(hash) ?? 0) + 1);
    }
    const used = new Map<string, number>();
    const missed = span.filter(({ hash }) => {
      const n = used.get(hash) ?? 0;
      used.set(hash, n + 1);
      return n >= (passed.get(hash) ?? 0);
    });
    // The oldest event served is one the walk never passed: older ones of the span may have
    // expired before any read served them.
    if (!foundBottom && missed[0]?.item.pos === 0)
      restart(walk, 'events expired before they were read', { missed: missed.length });
    return missed;
  }

  /**
   * At the walk's end (`caughtUp`) or where it stops short: the events of its span it never
   * passed, handed out as `takeNewEvents` would (same ids, same window); undefined when nothing
   * moved. One request when nothing moved, about one per page of the run when something did.
   */
  async function settle(walk: Walk, caughtUp: boolean): Promise<Settled | undefined> {
    const lastItem = walked.at(-1);
    if (!pending() || !first || !lastItem) return undefined;
    const anchor = { item: first, hash: eventHash(first.event) };
    const last = { item: lastItem, hash: eventHash(lastItem.event) };
    if (anchor.hash === last.hash || !(await moved(anchor))) return undefined;
    const context = { firstPosition: anchor.item.pos, lastPosition: last.item.pos };
    if (!caughtUp) {
      restart(
        walk,
        'the event log moved under the poller, and the run stops before reading it again',
        context,
      );
      return { newEvents: [] };
    }
    deps.logger.warn(
      'the event log moved under the poller while it read; reading the run again, newest first',
      context,
    );
    try {
      return { newEvents: handOut(await missedBy(walk, anchor, last), walk) };
    } catch (error) {
      if (!(error instanceof PollStopped)) throw error;
      restart(walk, 'the run stopped while reading the moved log again', { ...context, stop: error.reason });
      return { newEvents: [], stop: error.reason };
    }
  }

  return {
    pass,
    pending,
    settle,
  };
}

/** Missed events as new ones, as `takeNewEvents` counts them (identity counts, window, edge). */
function handOut(missed: Hashed[], walk: Walk): NewEvent[] {
  const out: NewEvent[] = [];
  for (const { item, hash } of missed) {
    if (!Number.isNaN(item.ts) && item.ts > walk.until) continue;
    const occurrence = walk.seen.get(hash) ?? 0;
    walk.seen.set(hash, occurrence + 1);
    if (occurrence < (walk.kept.get(hash)?.count ?? 0)) continue; // processed on an earlier run
    const ts = Number.isNaN(item.ts) ? (walk.floorTs ?? walk.boundaryTs ?? 0) : item.ts;
    walk.kept.set(hash, { ts, count: occurrence + 1 });
    if (ts <= walk.horizon && (walk.boundaryTs === null || ts > walk.boundaryTs)) walk.boundaryTs = ts;
    out.push({ event: item.event, id: `${hash}.${occurrence}`, ts, position: item.pos });
  }
  return out;
}
