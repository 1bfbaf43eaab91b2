/** Deletes from the state table, plain or conditional (see dynamo.ts for why this is a module of its own). */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { type Condition, conditionInput, type Key, unlessConditionFails } from './dynamo.js';
import type { StateTable } from './table.js';

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
