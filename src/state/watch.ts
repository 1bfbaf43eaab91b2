/**
 * The watch set: the configs the stale sweep judges (there is no endpoint that lists dynamic
 * configs). Entries come from the policy's `staleConfigs.configs` and, with `discover`, from
 * exposure events; each remembers since when it is watched (the grace period counts from
 * there) and the archive request last queued for it, so a stale config is queued once per
 * staleness episode rather than on every run.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { batchPut, queryPartition } from './dynamo.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const PK = ITEM_FAMILIES.watch;

export interface WatchEntry {
  configId: string;
  watchedSince: number;
  origin: 'policy' | 'discovered';
  archiveRequestId?: string | undefined;
  archiveQueuedAt?: number | undefined;
}

export async function loadWatchSet(table: StateTable): Promise<Map<string, WatchEntry>> {
  const set = new Map<string, WatchEntry>();
  for (const item of await queryPartition(table, PK)) {
    const configId = item.sk?.S;
    if (!configId) continue;
    set.set(configId, {
      configId,
      watchedSince: Number(item.watchedSince?.N ?? 0),
      origin: item.origin?.S === 'policy' ? 'policy' : 'discovered',
      archiveRequestId: item.archiveRequestId?.S,
      archiveQueuedAt: item.archiveQueuedAt?.N === undefined ? undefined : Number(item.archiveQueuedAt.N),
    });
  }
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
