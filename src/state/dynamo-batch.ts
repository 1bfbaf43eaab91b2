/**
 * Batched writes and reads that retry unprocessed items (with a short backoff) instead of
 * silently dropping them (see dynamo.ts for why this is a module of its own).
 */
import { BatchGetItemCommand, BatchWriteItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import type { Item, Key } from './dynamo.js';
import type { StateTable } from './table.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** DynamoDB may leave items unprocessed under load: ask again, with backoff, this many times at most. */
const BATCH_ATTEMPTS = 8;
const backoffMs = (attempt: number) => Math.min(1000, 25 * 2 ** attempt);

/** Puts `items` with BatchWriteItem (25 per call), retrying unprocessed ones. */
export async function batchPut(table: StateTable, items: Item[]): Promise<void> {
  await batchWrite(
    table,
    items.map((Item) => ({ PutRequest: { Item } })),
  );
}

/** Deletes the items with `keys` with BatchWriteItem (25 per call), retrying unprocessed ones. */
export async function batchDelete(table: StateTable, keys: Key[]): Promise<void> {
  await batchWrite(
    table,
    keys.map((Key) => ({ DeleteRequest: { Key } })),
  );
}

async function batchWrite(table: StateTable, requests: WriteRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: WriteRequest[] = requests.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > BATCH_ATTEMPTS)
        throw new Error(`BatchWriteItem left ${pending.length} items unprocessed`);
      if (attempt > 0) await sleep(backoffMs(attempt));
      const out = await table.client.send(
        new BatchWriteItemCommand({ RequestItems: { [table.tableName]: pending } }),
      );
      pending = out.UnprocessedItems?.[table.tableName] ?? [];
    }
  }
}

/** Gets the items with `keys` (100 per call, consistent), retrying unprocessed keys; missing items are absent. */
export async function batchGet(table: StateTable, keys: Key[]): Promise<Item[]> {
  const found: Item[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let pending: Key[] = keys.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > BATCH_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
      if (attempt > 0) await sleep(backoffMs(attempt));
      const out = await table.client.send(
        new BatchGetItemCommand({
          RequestItems: { [table.tableName]: { Keys: pending, ConsistentRead: true } },
        }),
      );
      found.push(...(out.Responses?.[table.tableName] ?? []));
      pending = out.UnprocessedKeys?.[table.tableName]?.Keys ?? [];
    }
  }
  return found;
}
