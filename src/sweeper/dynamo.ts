/**
 * Small DynamoDB helpers the sweeper's state modules share: a Query that follows every page,
 * and batched writes/reads that retry unprocessed items (with a short backoff) instead of
 * silently dropping them.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  QueryCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { StateTable } from '../state/table.js';

type Item = Record<string, AttributeValue>;

/** Every item of partition `pk` (all pages). */
export async function queryPartition(table: StateTable, pk: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  for (let page = 0; page < 10_000; page++) {
    const out = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
    if (!start) return items;
  }
  throw new Error(`query of ${pk} did not end`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Puts `items` with BatchWriteItem (25 per call), retrying unprocessed ones. */
export async function batchPut(table: StateTable, items: Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let pending: WriteRequest[] = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`BatchWriteItem left ${pending.length} items unprocessed`);
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      const out = await table.client.send(
        new BatchWriteItemCommand({ RequestItems: { [table.tableName]: pending } }),
      );
      pending = out.UnprocessedItems?.[table.tableName] ?? [];
    }
  }
}

/** Gets the items with `keys` (100 per call), retrying unprocessed keys; missing items are absent. */
export async function batchGet(table: StateTable, keys: Array<{ pk: string; sk: string }>): Promise<Item[]> {
  const found: Item[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let pending: Item[] = keys.slice(i, i + 100).map((k) => ({ pk: { S: k.pk }, sk: { S: k.sk } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
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
