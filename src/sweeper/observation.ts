/**
 * Since when exposures are observed: the stale sweep judges a config only from what we have
 * observed, never from missing data (DESIGN). Exposures are recorded only while `staleConfigs`
 * is set, and only for the `exposureEvents` listed at the time; so the cursor remembers the
 * settings it records with, and when they change (or recording starts) observation counts again
 * from the cursor's boundary: every event after it is read with the current settings.
 *
 * The log's history (what was logged before our first read, or before a gap of events that
 * expired unread) counts as observed too, so that a first run can judge from 90 days of it. But
 * only client SDKs vouch for it, by the timestamps they write, and in a log kept in timestamp
 * order a session from a device whose clock was reset (stamped in 2000) is the log's oldest
 * page: taken for the log's start, it would make observation decades long, and a config unused
 * only for the days actually logged would be archived. So history counts from the start of its
 * last stretch without a silence longer than `LONGEST_SILENCE_MS`, and only when that stretch
 * reaches our read; events logged after our read are our own observation, silences and all.
 */
import type { StaleConfigsPolicy } from '../policy/schema.js';
import { type Cursor, EMPTY_CURSOR } from '../state/sweep-cursor.js';
import { canonicalJson, shortHash } from './identity.js';

/** A hash of what decides which events count as exposures; null when nothing is recorded. */
export function exposureSettings(stale: StaleConfigsPolicy | undefined): string | null {
  return stale ? shortHash(canonicalJson(stale.exposureEvents), 16) : null;
}

/**
 * The cursor this run starts from, with the recording settings of this run. A first run reads
 * the whole log with them (recording since its start); a cursor stored with other settings, with
 * recording off, or by a version that did not store them (we cannot tell what it recorded)
 * starts recording at its boundary.
 */
export function withRecording(cursor: Cursor | undefined, stale: StaleConfigsPolicy | undefined): Cursor {
  const settings = exposureSettings(stale);
  if (!cursor) return { ...EMPTY_CURSOR, exposureSettings: settings, recordingSince: null };
  if (cursor.exposureSettings !== undefined && cursor.exposureSettings === settings) return cursor;
  return {
    ...cursor,
    exposureSettings: settings,
    recordingSince: settings === null ? null : cursor.boundaryTs,
  };
}

/**
 * The longest silence the log's history may hold and still count as observed through. Longer
 * than a weekend of a product used on weekdays; a clock reset to a fixed date lies years away.
 * A device whose clock runs less than this behind can stretch observation by about this much.
 */
export const LONGEST_SILENCE_MS = 3 * 86_400_000;

/** The observation half of a walk: where it starts, and until when the events read are history. */
export interface Observing {
  observedSince: number | null;
  historyEnd: number | null;
  /** The run's time plus the clock skew allowance: a stamp past it is a client's clock. */
  present: number;
}

/**
 * Takes an event of the walk (stamped `ts`; `newestBefore`: the newest stamp read before it) into
 * the observation's start: history starts again after each silence longer than the longest; the
 * first event stamped after the history (not past the run's time) ends it, and starts observation
 * at the history's end unless the history reached it.
 */
export function observe(walk: Observing, ts: number, newestBefore: number | null): void {
  if (walk.historyEnd === null) {
    walk.observedSince ??= ts; // a cursor stored before histories were checked
    return;
  }
  if (ts > walk.present) return;
  const silentSince = newestBefore ?? Number.NEGATIVE_INFINITY;
  if (ts > walk.historyEnd) {
    if (walk.observedSince === null || silentSince < walk.historyEnd - LONGEST_SILENCE_MS)
      walk.observedSince = walk.historyEnd;
    walk.historyEnd = null;
  } else if (walk.observedSince === null || ts - silentSince > LONGEST_SILENCE_MS) {
    walk.observedSince = ts;
  }
}

/**
 * Where our observation of exposures begins (see above), not before recording started. While no
 * event stamped after the history has been read, the history counts only if its newest event
 * lies within the longest silence before the history's end.
 */
export function observationStart(cursor: Cursor | undefined): number | null {
  if (!cursor || cursor.observedSince === null) return null;
  const { historyEnd, boundaryTs } = cursor;
  const unreached =
    historyEnd !== undefined &&
    historyEnd !== null &&
    (boundaryTs ?? Number.NEGATIVE_INFINITY) < historyEnd - LONGEST_SILENCE_MS;
  const since = unreached ? Math.max(cursor.observedSince, historyEnd) : cursor.observedSince;
  return Math.max(since, cursor.recordingSince ?? Number.NEGATIVE_INFINITY);
}
