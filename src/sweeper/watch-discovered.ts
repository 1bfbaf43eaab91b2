/**
 * The watch set's rule, shared by the sweeper's walk and the late-exposure walk (both discover
 * configs in the exposures they read): a discovered config is watched while the bounded last-seen
 * index keeps its entry, and forgotten once that entry is evicted, unless the policy lists it
 * (src/state/watch.ts forgetEvicted). An exposure stamped no later than the eviction watermark is
 * not recorded (src/state/last-seen.ts), so its id has no entry: watched, it would be forgotten at
 * the start of the next run, and a client logging user ids as config ids would have each run write
 * and delete a watch item per id the bound drops (the late walk reads every event again).
 */
import type { LastSeenIndex } from '../state/last-seen.js';
import type { StateTable } from '../state/table.js';
import { forgetEvicted, type WatchEntry, writeWatchEntries } from '../state/watch.js';

/** Adds the `discovered` configs the index keeps (and `fromPolicy`), then forgets the evicted ones. */
export async function watchDiscovered(
  table: StateTable,
  state: { watch: Map<string, WatchEntry>; lastSeen: LastSeenIndex },
  discovered: ReadonlyMap<string, WatchEntry>,
  listed: ReadonlySet<string>,
  fromPolicy: readonly WatchEntry[] = [],
): Promise<{ added: string[]; forgotten: number }> {
  const { watch, lastSeen } = state;
  const kept = [...discovered].filter(([id]) => lastSeen.entries.has(id));
  const newWatch = [...new Map([...kept, ...fromPolicy.map((e) => [e.configId, e] as const)]).values()];
  if (newWatch.length > 0) await writeWatchEntries(table, newWatch);
  for (const entry of newWatch) watch.set(entry.configId, entry);
  const forgotten = await forgetEvicted(table, watch, lastSeen.entries, listed);
  return { added: newWatch.map((e) => e.configId), forgotten };
}
