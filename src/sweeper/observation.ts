/**
 * Since when exposures are observed: the stale sweep judges a config only from what we have
 * observed, never from missing data (DESIGN). Exposures are recorded only while `staleConfigs`
 * is set, and only for the `exposureEvents` listed at the time; so the cursor remembers the
 * settings it records with, and when they change (or recording starts) observation counts again
 * from the cursor's boundary: every event after it is read with the current settings.
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

/** Where our observation of exposures begins: the oldest page read (its median time), not before recording started. */
export function observationStart(cursor: Cursor | undefined): number | null {
  if (!cursor || cursor.observedSince === null) return null;
  return Math.max(cursor.observedSince, cursor.recordingSince ?? Number.NEGATIVE_INFINITY);
}
