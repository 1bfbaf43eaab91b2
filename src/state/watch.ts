/**
 * The watch set: the configs the stale sweep judges (there is no endpoint that lists dynamic
 * configs). Entries come from the policy's `staleConfigs.configs` and, with `discover`, from
 * exposure events; each remembers since when it is watched (the grace period counts from
 * there) and the archive request last queued for it, so a stale config is queued once per
 * staleness episode rather than on every run.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { notAfter } from '../util/future-times.js';
import { itemKey } from './dynamo.js';
import { batchDelete, batchPut } from './dynamo-batch.js';
import { queryPartition } from './dynamo-query.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const PK = ITEM_FAMILIES.watch;

export interface WatchEntry {
  configId: string;
  watchedSince: number;
  origin: 'policy' | 'discovered';
  archiveRequestId?: string | undefined;
  archiveQueuedAt?: number | undefined;
}

/**
 * The watch set as a reader at `now` (the sweeper's clock) takes it. An entry watched "since" a
 * time ahead of it was added by a run at a future time (a test event naming 2030, before the
 * sweeper refused those): its config sat in its grace period ("watched for -1100 days") until
 * then, never judged. It reads as watched since `now` (src/util/future-times.ts), and is written
 * back so, or the grace would count from each run's time again.
 */
export async function loadWatchSet(table: StateTable, now?: number): Promise<Map<string, WatchEntry>> {
  const set = new Map<string, WatchEntry>();
  const corrected: WatchEntry[] = [];
  for (const item of await queryPartition(table, PK)) {
    const configId = item.sk?.S;
    if (!configId) continue;
    const stored = Number(item.watchedSince?.N ?? 0);
    const watchedSince = now === undefined ? stored : notAfter(stored, now);
    const entry: WatchEntry = {
      configId,
      watchedSince,
      origin: item.origin?.S === 'policy' ? 'policy' : 'discovered',
      archiveRequestId: item.archiveRequestId?.S,
      archiveQueuedAt: item.archiveQueuedAt?.N === undefined ? undefined : Number(item.archiveQueuedAt.N),
    };
    set.set(configId, entry);
    if (watchedSince !== stored) corrected.push(entry);
  }
  if (corrected.length > 0) await writeWatchEntries(table, corrected);
  return set;
}

export async function writeWatchEntries(table: StateTable, entries: WatchEntry[]): Promise<void> {
  await batchPut(
    table,
    entries.map((entry) => {
      const item: Record<string, AttributeValue> = {
        pk: { S: PK },
        sk: { S: entry.configId },
        watchedSince: { N: String(entry.watchedSince) },
        origin: { S: entry.origin },
      };
      if (entry.archiveRequestId) item.archiveRequestId = { S: entry.archiveRequestId };
      if (entry.archiveQueuedAt !== undefined) item.archiveQueuedAt = { N: String(entry.archiveQueuedAt) };
      return item;
    }),
  );
}

/**
 * Forgets the discovered entries whose config left the last-seen index (evicted: src/state/
 * last-seen.ts), unless the policy lists them. A client logging user ids as config ids would
 * otherwise grow the watch set as the index once grew, without a bound, and each id would come
 * back as an archive request once the flood stops. Forgetting only delays: a config seen again is
 * discovered again, its grace period counting anew. Returns how many were forgotten.
 */
export async function forgetEvicted(
  table: StateTable,
  watch: Map<string, WatchEntry>,
  indexed: ReadonlyMap<string, number>,
  listed: ReadonlySet<string>,
): Promise<number> {
  const gone = [...watch.values()].filter(
    (e) => e.origin === 'discovered' && !indexed.has(e.configId) && !listed.has(e.configId),
  );
  if (gone.length === 0) return 0;
  await batchDelete(
    table,
    gone.map((e) => itemKey(PK, e.configId)),
  );
  for (const e of gone) watch.delete(e.configId);
  return gone.length;
}
