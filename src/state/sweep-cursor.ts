/**
 * The event cursor: how far the sweeper has read the event log, saved in the state table
 * after the effects of the events it passes are durable. Events older than `floorTs` are
 * processed; from `floorTs` on, `recent` names (hash → [timestamp, count]) the ones that are,
 * so events with equal timestamps are neither lost nor doubled, an event logged late (stamped
 * up to a lookback before the newest one read) is still handed out once, and an event stamped
 * in the future is handed out without moving the boundary there (src/sweeper/recent.ts bounds
 * all this). `position` (events processed, counted from the oldest) and `pageSize` let the
 * next run jump straight to the page of the first unseen event.
 *
 * Stored before the lookback (no `floorTs`): the floor is `boundaryTs` and `recent` holds
 * `boundaryCounts`, which is exactly what that version meant. `boundaryCounts` is still
 * written (the entries at `boundaryTs`) so that a rollback reads a cursor it understands.
 */
import { getItem, type Item, itemKey, putItem } from './dynamo.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

/** The order of `GET /events` pages, which the spec leaves open: the poller detects it. */
export type EventOrder = 'newest-first' | 'oldest-first';

export interface Cursor {
  /** The order detected (or configured) on the last run; re-verified on every page. */
  order?: EventOrder | undefined;
  /** The newest event timestamp processed (epoch ms), at most the run's time plus a skew allowance; null before the first event. */
  boundaryTs: number | null;
  /** At `boundaryTs`: how many events of each identity hash are processed (for a rollback). */
  boundaryCounts: Record<string, number>;
  /** Every event older than this is processed; absent on a cursor stored before the lookback. */
  floorTs?: number | null | undefined;
  /** From `floorTs` on: identity hash → [timestamp, events of that identity processed]. */
  recent?: Record<string, [number, number]> | undefined;
  /**
   * Hash of the exposure-event settings exposures were recorded with; null: not recording. The
   * late-exposure walk's cursor carries the sweeper cursor's two recording fields of the episode
   * it read for (absent on one stored before it did).
   */
  exposureSettings?: string | null | undefined;
  /** Exposures are recorded, with `exposureSettings`, for events after this (null: all read). */
  recordingSince?: number | null | undefined;
  /** Events processed, counted from the oldest: the position of the first unseen event. */
  position: number;
  /** The page size the API applied on the last read (it may cap the requested limit). */
  pageSize: number;
  /** `totalItems` on the last read. */
  totalItems: number;
  /** Where our observation of exposures begins (src/sweeper/observation.ts observationStart). */
  observedSince: number | null;
  /**
   * When our reading of the log (re)started (the run's time plus the skew allowance): events
   * stamped before it are history, vouched for by client timestamps only; null once an event
   * stamped after it was read (absent on a cursor stored before histories were checked).
   */
  historyEnd?: number | null | undefined;
  /** When a run last read the log up to its own time (epoch ms): the sweeper is no further behind. */
  caughtUpAt?: number | null | undefined;
  updatedAt?: string | undefined;
}

export const EMPTY_CURSOR: Cursor = {
  boundaryTs: null,
  boundaryCounts: {},
  position: 0,
  pageSize: 0,
  totalItems: 0,
  observedSince: null,
};

/**
 * The recording episode a cursor belongs to: it changes when the stale sweep is turned on (again)
 * or its `exposureEvents` change (src/sweeper/observation.ts withRecording). The one test of a
 * turn-on: what the stale sweep remembers from an earlier episode (since when it has not judged,
 * where the late-exposure walk stood) does not carry over.
 */
export function recordingEpisode(cursor: Pick<Cursor, 'exposureSettings' | 'recordingSince'>): string {
  return `${cursor.exposureSettings ?? ''}@${cursor.recordingSince ?? ''}`;
}

/** `events`: the sweeper's walk; `late-exposures`: the walk behind it that reads exposures logged late. */
export type CursorName = 'events' | 'late-exposures';
const key = (name: CursorName) => itemKey(`${ITEM_FAMILIES.sweeper}#cursor`, name);

export async function readCursor(
  table: StateTable,
  name: CursorName = 'events',
): Promise<Cursor | undefined> {
  const text = (await getItem(table, key(name)))?.state?.S;
  if (!text) return undefined;
  return { ...EMPTY_CURSOR, ...(JSON.parse(text) as Partial<Cursor>) };
}

/**
 * How far the sweeper has read the event log: the time of its last run that read up to then, in
 * a small item of its own (the cursor can near 400 KB). The worker reads it with a stale sweep's
 * archive: exposures logged after it are not in the last-seen index yet.
 */
export const READ_UP_TO_KEY = itemKey(ITEM_FAMILIES.eventsRead, 'events');

export async function writeReadUpTo(table: StateTable, at: number, now: Date): Promise<void> {
  await putItem(table, { ...READ_UP_TO_KEY, at: { N: String(at) }, updatedAt: { S: now.toISOString() } });
}

/** The time an item says the log was read up to (epoch ms); null without one. */
export function readUpToFromItem(item: Item | undefined): number | null {
  const at = Number(item?.at?.N);
  return item && Number.isFinite(at) ? at : null;
}

export async function writeCursor(
  table: StateTable,
  cursor: Cursor,
  now: Date,
  name: CursorName = 'events',
): Promise<void> {
  const state = JSON.stringify({ ...cursor, updatedAt: now.toISOString() });
  await putItem(table, { ...key(name), state: { S: state } });
}
