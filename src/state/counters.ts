/**
 * Atomic windowed counters for the policy's `maxPerHour` / `maxPerDay`. The policy names the
 * counter and its window; we add one only while the count stays within the limit, in a single
 * conditional update, so concurrent workers can never overshoot. Items expire after their window.
 */
import { updateIf } from './dynamo.js';
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
  const out = await updateIf(
    table,
    itemKey(counter),
    {
      expression: 'ADD n :one SET expiresAt = :ttl, windowEnd = :end',
      values: {
        ':one': { N: '1' },
        ':limit': { N: String(counter.limit) },
        // Keep the item a day past its window: enough to read back while debugging.
        ':ttl': { N: String(Math.floor(counter.windowEnd.getTime() / 1000) + 86_400) },
        ':end': { S: counter.windowEnd.toISOString() },
      },
      returnNew: true,
    },
    { expression: 'attribute_not_exists(n) OR n < :limit' },
  );
  if (!out) return { ok: false, limit: counter.limit };
  return { ok: true, count: Number(out.Attributes?.n?.N ?? '0') };
}

/** Gives a unit back when the mutation it was taken for did not happen (a transient failure). */
export async function refundCounter(table: StateTable, counter: CounterWindow): Promise<void> {
  await updateIf(
    table,
    itemKey(counter),
    { expression: 'ADD n :minusOne', values: { ':minusOne': { N: '-1' }, ':zero': { N: '0' } } },
    { expression: 'n > :zero' },
  );
}
