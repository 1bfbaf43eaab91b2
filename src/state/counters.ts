/**
 * Atomic windowed counters for the policy's `maxPerHour` / `maxPerDay`. The policy names the
 * counter and its window; we add one only while the count stays within the limit, in a single
 * conditional update, so concurrent workers can never overshoot. Items expire after their window.
 */
import { ConditionalCheckFailedException, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { ITEM_FAMILIES, type StateTable } from './table.js';

export interface CounterWindow {
  key: string;
  limit: number;
  windowStart: Date;
  windowEnd: Date;
}

export type CounterResult = { ok: true; count: number } | { ok: false; limit: number };

function itemKey(counter: CounterWindow) {
  return {
    pk: { S: `${ITEM_FAMILIES.counter}#${counter.key}` },
    sk: { S: counter.windowStart.toISOString() },
  };
}

/** Takes one unit of `counter` if it stays <= limit; otherwise leaves it untouched. */
export async function consumeCounter(table: StateTable, counter: CounterWindow): Promise<CounterResult> {
  try {
    const out = await table.client.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: itemKey(counter),
        UpdateExpression: 'ADD n :one SET expiresAt = :ttl, windowEnd = :end',
        ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
        ExpressionAttributeValues: {
          ':one': { N: '1' },
          ':limit': { N: String(counter.limit) },
          // Keep the item a day past its window: enough to read back while debugging.
          ':ttl': { N: String(Math.floor(counter.windowEnd.getTime() / 1000) + 86_400) },
          ':end': { S: counter.windowEnd.toISOString() },
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return { ok: true, count: Number(out.Attributes?.n?.N ?? '0') };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { ok: false, limit: counter.limit };
    throw error;
  }
}

/** Gives a unit back when the mutation it was taken for did not happen (a transient failure). */
export async function refundCounter(table: StateTable, counter: CounterWindow): Promise<void> {
  try {
    await table.client.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: itemKey(counter),
        UpdateExpression: 'ADD n :minusOne',
        ConditionExpression: 'n > :zero',
        ExpressionAttributeValues: { ':minusOne': { N: '-1' }, ':zero': { N: '0' } },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
