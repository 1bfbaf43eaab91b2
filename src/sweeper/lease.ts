/**
 * One sweeper run at a time. EventBridge may start a run while the previous one is still
 * going (or retry one); two runs would race on the cursor and on the read-merge-write of the
 * last-seen index. A run takes a lease with a conditional put that expires with the run's
 * own deadline, so a crashed run blocks the next one for at most one function timeout.
 */
import { ConditionalCheckFailedException, DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ITEM_FAMILIES, type StateTable } from '../state/table.js';

const KEY = { pk: { S: `${ITEM_FAMILIES.sweeper}#lease` }, sk: { S: 'run' } };

/** True when the lease was taken; false when another run holds it until after `nowMs`. */
export async function acquireLease(
  table: StateTable,
  owner: string,
  nowMs: number,
  untilMs: number,
): Promise<boolean> {
  try {
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: {
          ...KEY,
          owner: { S: owner },
          until: { N: String(untilMs) },
          expiresAt: { N: String(Math.ceil(untilMs / 1000) + 3600) },
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': { N: String(nowMs) } },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function releaseLease(table: StateTable, owner: string): Promise<void> {
  try {
    await table.client.send(
      new DeleteItemCommand({
        TableName: table.tableName,
        Key: KEY,
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': { S: owner } },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
