/**
 * The few DynamoDB operations every state module is built from, so that each is written once:
 * a consistent get, a plain put, conditional writes that answer false when their condition
 * fails (the at-most-once claims, markers and counters), a Query that follows every page, and
 * batched writes/reads that retry unprocessed items (with a short backoff) instead of silently
 * dropping them. Nothing outside `src/state/` builds a DynamoDB command.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type UpdateItemCommandOutput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { StateTable } from './table.js';

export type Item = Record<string, AttributeValue>;
export type Key = Item;

/** A condition expression with its names and values, as DynamoDB takes it. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Item;
}

function conditionInput(condition: Condition) {
  return {
    ConditionExpression: condition.expression,
    ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
    ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
  };
}

/** Runs a conditional write; undefined when its condition failed, the output otherwise. */
async function unlessConditionFails<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** The item with `key` (consistent read), or undefined. */
export async function getItem(table: StateTable, key: Key): Promise<Item | undefined> {
  const { Item } = await table.client.send(
    new GetItemCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

/** Puts `item`, replacing whatever had its key. */
export async function putItem(table: StateTable, item: Item): Promise<void> {
  await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: item }));
}

/** Puts `item` when `condition` holds; false when it did not (nothing written). */
export async function putIf(table: StateTable, item: Item, condition: Condition): Promise<boolean> {
  const out = await unlessConditionFails(() =>
    table.client.send(
      new PutItemCommand({ TableName: table.tableName, Item: item, ...conditionInput(condition) }),
    ),
  );
  return out !== undefined;
}

/** Puts `item` only when no item has its key yet; false when one had (the first writer wins). */
export function putIfAbsent(table: StateTable, item: Item): Promise<boolean> {
  return putIf(table, item, { expression: 'attribute_not_exists(pk)' });
}

/** Deletes the item with `key`, unconditionally. */
export async function deleteItem(table: StateTable, key: Key): Promise<void> {
  await table.client.send(new DeleteItemCommand({ TableName: table.tableName, Key: key }));
}

/** Deletes the item with `key` when `condition` holds; false when it did not. */
export async function deleteIf(table: StateTable, key: Key, condition: Condition): Promise<boolean> {
  const out = await unlessConditionFails(() =>
    table.client.send(
      new DeleteItemCommand({ TableName: table.tableName, Key: key, ...conditionInput(condition) }),
    ),
  );
  return out !== undefined;
}

/** Applies `update` to the item with `key` when `condition` holds; the new values, or undefined when it did not. */
export function updateIf(
  table: StateTable,
  key: Key,
  update: { expression: string; values: Item; returnNew?: boolean },
  condition: Omit<Condition, 'values'>,
): Promise<UpdateItemCommandOutput | undefined> {
  return unlessConditionFails(() =>
    table.client.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: key,
        UpdateExpression: update.expression,
        ConditionExpression: condition.expression,
        ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
        ExpressionAttributeValues: update.values,
        ...(update.returnNew ? { ReturnValues: 'UPDATED_NEW' as const } : {}),
      }),
    ),
  );
}

/**
 * Every item of partition `pk` (optionally only those whose `sk` starts with `skPrefix`),
 * following every page, in `sk` order. `maxPages` bounds a partition that should be small.
 */
export async function queryPartition(
  table: StateTable,
  pk: string,
  options: { skPrefix?: string; maxPages?: number } = {},
): Promise<Item[]> {
  const items: Item[] = [];
  const maxPages = options.maxPages ?? 10_000;
  let start: Item | undefined;
  for (let page = 0; page < maxPages; page++) {
    const out = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression:
          options.skPrefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': { S: pk },
          ...(options.skPrefix === undefined ? {} : { ':prefix': { S: options.skPrefix } }),
        },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
    if (!start) return items;
  }
  if (options.maxPages !== undefined) return items;
  throw new Error(`query of ${pk} did not end`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** DynamoDB may leave items unprocessed under load: ask again, with backoff, this many times at most. */
const BATCH_ATTEMPTS = 8;
const backoffMs = (attempt: number) => Math.min(1000, 25 * 2 ** attempt);

/** Puts `items` with BatchWriteItem (25 per call), retrying unprocessed ones. */
export async function batchPut(table: StateTable, items: Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let pending: WriteRequest[] = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
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

/** A string naming an item's key, to find batch results by key. */
export const keyId = (item: Item | undefined) => `${item?.pk?.S ?? ''}\u0000${item?.sk?.S ?? ''}`;

/** The `{pk, sk}` key of strings, as DynamoDB takes it. */
export const itemKey = (pk: string, sk: string): Key => ({ pk: { S: pk }, sk: { S: sk } });
