/**
 * The events already processed near the cursor's boundary, by identity, and the rules that keep
 * that set small enough for one DynamoDB item.
 *
 * Client SDKs stamp events, and the log is kept in timestamp order (or by arrival: then the walk
 * counts the disorder, src/sweeper/event-walk.ts): an event logged late lands behind events
 * already read, and one stamped by a device with a wrong clock lands far ahead.
 * So the boundary (the newest timestamp processed) never moves past the run's time plus
 * `MAX_CLOCK_SKEW_MS`; an event stamped later is handed out and remembered here instead. And
 * each walk starts `LOOKBACK_MS` before the boundary (the floor): an event from there on that
 * is not remembered here is new, so a late one is handed out once.
 */
import type { Cursor } from '../state/sweep-cursor.js';

/** How late (behind the newest event read) an event may be logged and still be handed out. */
export const LOOKBACK_MS = 15 * 60_000;
/** How far ahead of the run's time a client's clock may run before its events stop moving the boundary. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/**
 * Events remembered ahead of the boundary (stamped in the future), at most. Beyond it the
 * furthest ahead are forgotten and handed out again on the next run, with the same ids (the
 * worker and the notification marks drop the copies): better than an item DynamoDB refuses.
 */
export const MAX_AHEAD = 200;
/**
 * Most identities kept in the lookback window, whatever the page size: each costs about 70 bytes
 * of the cursor item, which DynamoDB refuses past 400 KB (a refused cursor would stop every run).
 */
export const MAX_WINDOW = 1000;
/** Identities of the boundary's one millisecond kept at most (about 70 bytes each in the item). */
export const MAX_BOUNDARY_GROUP = 3000;

/** An identity processed: its timestamp and how many events of it are processed. */
export interface Seen {
  ts: number;
  count: number;
}

export interface RecentWindow {
  floorTs: number | null;
  boundaryTs: number | null;
  kept: Map<string, Seen>;
}

/** What `settle` had to give up to stay bounded (the poller logs it). */
export interface Trimmed {
  /** The floor rose above `boundaryTs - LOOKBACK_MS`: the log is busier than the window holds. */
  windowCut: boolean;
  aheadDropped: number;
  /** Events of the boundary's own millisecond beyond what the item holds: read again as new. */
  boundaryDropped: number;
}

/** The window a stored cursor describes (a cursor stored before the lookback included). */
export function windowOf(cursor: Cursor): RecentWindow {
  const kept = new Map<string, Seen>();
  if (cursor.recent) {
    for (const [hash, [ts, count]] of Object.entries(cursor.recent)) kept.set(hash, { ts, count });
    return { floorTs: cursor.floorTs ?? cursor.boundaryTs, boundaryTs: cursor.boundaryTs, kept };
  }
  // The previous version: everything before the boundary is processed, its counts are at it.
  for (const [hash, count] of Object.entries(cursor.boundaryCounts))
    if (cursor.boundaryTs !== null) kept.set(hash, { ts: cursor.boundaryTs, count });
  return { floorTs: cursor.boundaryTs, boundaryTs: cursor.boundaryTs, kept };
}

/** The cursor fields for `window` (plus the counts at the boundary, which a rollback reads). */
export function storedWindow(
  window: RecentWindow,
): Pick<Cursor, 'floorTs' | 'recent' | 'boundaryTs' | 'boundaryCounts'> {
  const recent: Record<string, [number, number]> = {};
  const boundaryCounts: Record<string, number> = {};
  for (const [hash, seen] of window.kept) {
    recent[hash] = [seen.ts, seen.count];
    if (seen.ts === window.boundaryTs) boundaryCounts[hash] = seen.count;
  }
  return { floorTs: window.floorTs, recent, boundaryTs: window.boundaryTs, boundaryCounts };
}

/**
 * Raises the floor to the lookback and forgets what lies below it; then bounds the set: at most
 * one page (`pageSize`, the size the API applied; `MAX_WINDOW` at most) of identities from the floor to the boundary
 * (oldest timestamps dropped whole, the floor raised past them; the boundary's own millisecond
 * is always kept, or equal timestamps could double) and `MAX_AHEAD` beyond it. A page bounds
 * what each run re-reads too (one page more than without the lookback), so a run stopped by its
 * page budget or deadline still moves on; and 1000 identities keep the item near 50 KB. On a log
 * busier than a page per lookback, the window is shorter than `LOOKBACK_MS` (logged).
 */
/**
 * How many of `inWindow` (newest first) to keep: whole milliseconds while they fit in `limit`,
 * the boundary's own millisecond whole (or equal timestamps could double), unless a client
 * stamped thousands of events alike: a cursor item past DynamoDB's 400 KB would stop every run,
 * so the rest of that millisecond is read again as new, under the same ids (deduplicated).
 */
function newestThatFit(inWindow: Array<[string, Seen]>, limit: number) {
  let keep = 0;
  let end = 0;
  while (keep < inWindow.length) {
    const ts = (inWindow[keep] as [string, Seen])[1].ts;
    while (end < inWindow.length && (inWindow[end] as [string, Seen])[1].ts === ts) end++;
    if (end > (keep === 0 ? MAX_BOUNDARY_GROUP : limit)) break;
    keep = end;
  }
  return keep > 0
    ? { keep, boundaryDropped: 0 }
    : { keep: MAX_BOUNDARY_GROUP, boundaryDropped: end - MAX_BOUNDARY_GROUP };
}

export function settle(window: RecentWindow, pageSize: number): Trimmed {
  const trimmed: Trimmed = { windowCut: false, aheadDropped: 0, boundaryDropped: 0 };
  if (window.boundaryTs === null) return trimmed;
  const boundary = window.boundaryTs;
  window.floorTs = Math.max(window.floorTs ?? Number.NEGATIVE_INFINITY, boundary - LOOKBACK_MS);
  const inWindow: Array<[string, Seen]> = [];
  const ahead: Array<[string, Seen]> = [];
  for (const entry of window.kept) {
    if (entry[1].ts < window.floorTs) window.kept.delete(entry[0]);
    else (entry[1].ts > boundary ? ahead : inWindow).push(entry);
  }
  const limit = Math.min(Math.max(pageSize, 1), MAX_WINDOW);
  if (inWindow.length > limit) {
    inWindow.sort((a, b) => b[1].ts - a[1].ts);
    const { keep, boundaryDropped } = newestThatFit(inWindow, limit);
    trimmed.boundaryDropped = boundaryDropped;
    const oldestKept = (inWindow[keep - 1] as [string, Seen])[1].ts;
    for (const [hash] of inWindow.slice(keep)) window.kept.delete(hash);
    window.floorTs = oldestKept;
    trimmed.windowCut = true;
  }
  if (ahead.length > MAX_AHEAD) {
    ahead.sort((a, b) => a[1].ts - b[1].ts);
    for (const [hash] of ahead.slice(MAX_AHEAD)) window.kept.delete(hash);
    trimmed.aheadDropped = ahead.length - MAX_AHEAD;
  }
  return trimmed;
}
