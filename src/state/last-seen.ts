/**
 * The last-seen index: config id → the newest exposure observed (epoch ms), one item per
 * config under `pk = lastseen`. Writes keep the maximum, so the order events arrive in does
 * not matter. BatchWriteItem cannot compare, so the run reads the whole index once, merges
 * the maximum in memory and batch-writes only the entries that grew; the run lease (sweep-lease.ts)
 * makes the sweeper the single writer, which is what makes read-merge-write safe. (The
 * alternative, one conditional UpdateItem per config, costs a request per config per flush.)
 */

import { type Item, itemKey } from './dynamo.js';
import { batchPut } from './dynamo-batch.js';
import { queryPartition } from './dynamo-query.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const PK = ITEM_FAMILIES.lastSeen;

export async function loadLastSeen(table: StateTable): Promise<Map<string, number>> {
  const index = new Map<string, number>();
  for (const item of await queryPartition(table, PK)) {
    const id = item.sk?.S;
    const at = Number(item.lastSeen?.N);
    if (id && Number.isFinite(at)) index.set(id, at);
  }
  return index;
}

/** The key of one config's last-seen item (the worker reads it with a request's state). */
export const lastSeenItemKey = (configId: string) => itemKey(PK, configId);

/** The last exposure an item records (epoch ms), if any. */
export function lastSeenFromItem(item: Item | undefined): number | undefined {
  const at = Number(item?.lastSeen?.N);
  return item && Number.isFinite(at) ? at : undefined;
}

/** Merges `observed` into `index` (keeping the maximum) and returns the entries that grew. */
export function mergeMax(index: Map<string, number>, observed: Map<string, number>): Map<string, number> {
  const grown = new Map<string, number>();
  for (const [id, at] of observed) {
    const known = index.get(id);
    if (known === undefined || at > known) {
      index.set(id, at);
      grown.set(id, at);
    }
  }
  return grown;
}

export async function writeLastSeen(
  table: StateTable,
  entries: Map<string, number>,
  now: Date,
): Promise<void> {
  await batchPut(
    table,
    [...entries].map(([id, at]) => ({
      pk: { S: PK },
      sk: { S: id },
      lastSeen: { N: String(at) },
      updatedAt: { S: now.toISOString() },
    })),
  );
}
