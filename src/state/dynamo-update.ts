/** Conditional updates of the state table (see dynamo.ts for why this is a module of its own). */
import { UpdateItemCommand, type UpdateItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { type Condition, type Item, type Key, unlessConditionFails } from './dynamo.js';
import type { StateTable } from './table.js';

/** Applies `update` to the item with `key` when `condition` holds; the new (or old) values, or undefined when it did not. */
export function updateIf(
  table: StateTable,
  key: Key,
  update: { expression: string; values: Item; returnNew?: boolean; returnOld?: boolean },
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
        ...(update.returnOld ? { ReturnValues: 'UPDATED_OLD' as const } : {}),
      }),
    ),
  );
}

/**
 * Applies `update` to the item with `key` (creating it when absent); the new values (`returnNew`) or
 * the whole new item (`returnAll`). `names` stand for attribute names an expression cannot spell.
 */
export async function updateItem(
  table: StateTable,
  key: Key,
  update: {
    expression: string;
    values: Item;
    names?: Record<string, string>;
    returnNew?: boolean;
    returnAll?: boolean;
  },
): Promise<UpdateItemCommandOutput> {
  const returnValues = update.returnAll ? 'ALL_NEW' : update.returnNew ? 'UPDATED_NEW' : undefined;
  return table.client.send(
    new UpdateItemCommand({
      TableName: table.tableName,
      Key: key,
      UpdateExpression: update.expression,
      ...(update.names ? { ExpressionAttributeNames: update.names } : {}),
      ExpressionAttributeValues: update.values,
      ...(returnValues ? { ReturnValues: returnValues } : {}),
    }),
  );
}
