/**
 * The last-seen index's other forms of a watched config's name, taken before judging. A flush
 * folds the forms of the names it reads exposures of (src/sweeper/flush-plan.ts foldForms), but
 * the index keeps what earlier runs recorded under the form written: a config listed in
 * `configs` (or discovered) after its exposures were recorded as `New_Checkout_Copy` had no entry
 * of its own, looked unexposed for the whole observation and was archived while in use. Written
 * to the index (a maximum), so the worker's re-check of a queued archive reads it too.
 */
import { type LastSeenIndex, lastSeenOf, recordExposures } from '../state/last-seen.js';
import type { StateTable } from '../state/table.js';
import { foldConfigName } from '../util/config-name.js';
import { newestPerName } from './name-case.js';

/** Gives each of `watched` the newest exposure of any form of its name; returns how many grew. */
export async function foldIndexForms(
  table: StateTable,
  index: LastSeenIndex,
  watched: Iterable<string>,
  now: Date,
): Promise<number> {
  const newest = newestPerName(index.entries);
  const grown = new Map<string, number>();
  for (const id of watched) {
    const at = newest.get(foldConfigName(id));
    const known = lastSeenOf(index.entries, index.evictedUpTo, id);
    if (at !== undefined && (known === null || at > known)) grown.set(id, at);
  }
  if (grown.size === 0) return 0;
  return (await recordExposures(table, index, grown, now)).size;
}
