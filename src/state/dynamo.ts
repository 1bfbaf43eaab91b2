/**
 * The few DynamoDB operations every state module is built from, so that each is written once:
 * a consistent get, a plain put and conditional writes that answer false when their condition
 * fails (the at-most-once claims, markers and leases). Deletes, updates, queries and batches
 * live in their own modules beside this one (dynamo-delete, dynamo-update, dynamo-query,
 * dynamo-batch): each function's bundle then carries only the requests it makes, and the stack
 * test that compares a function's requests with its IAM grants stays exact. Nothing outside
 * `src/state/` builds a DynamoDB command.
 */
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
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

export function conditionInput(condition: Condition) {
  return {
    ConditionExpression: condition.expression,
    ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
    ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
  };
}

/** Runs a conditional write; undefined when its condition failed, the output otherwise. */
export async function unlessConditionFails<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** A string naming an item's key, to find batch results by key. */
export const keyId = (item: Item | undefined) => `${item?.pk?.S ?? ''}\u0000${item?.sk?.S ?? ''}`;

/** The `{pk, sk}` key of strings, as DynamoDB takes it. */
export const itemKey = (pk: string, sk: string): Key => ({ pk: { S: pk }, sk: { S: sk } });

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

/** Puts `item`, replacing whatever had its key; the item it replaced (undefined when there was none). */
export async function putItemReplacing(table: StateTable, item: Item): Promise<Item | undefined> {
  const { Attributes } = await table.client.send(
    new PutItemCommand({ TableName: table.tableName, Item: item, ReturnValues: 'ALL_OLD' }),
  );
  return Attributes;
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
