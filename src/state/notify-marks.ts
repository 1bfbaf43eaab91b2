/**
 * Which rule notifications were already posted, so a rerun after a crash does not post them
 * again. Marks are written right after the posts (30-day TTL): posting is at-least-once, and
 * only a crash between the post and its mark can repeat a message (never lose one). The same
 * partition holds the marks of rule requests over their cap (`enqueue-capped#…`,
 * src/sweeper/request-cap.ts): the sweeper's role reaches no other.
 */

import { itemKey } from './dynamo.js';
import { batchGet, batchPut } from './dynamo-batch.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

const PK = `${ITEM_FAMILIES.sweeper}#notified`;

export async function postedAlready(table: StateTable, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const items = await batchGet(
    table,
    keys.map((sk) => itemKey(PK, sk)),
  );
  return new Set(items.map((item) => item.sk?.S ?? ''));
}

export async function markPosted(table: StateTable, keys: string[], now: Date): Promise<void> {
  await batchPut(
    table,
    keys.map((sk) => ({
      pk: { S: PK },
      sk: { S: sk },
      postedAt: { S: now.toISOString() },
      expiresAt: { N: String(expiresAfterDays(now, 30)) },
    })),
  );
}

/**
 * The stale summary's own mark: the hash of the text posted last. "Changed since the last post"
 * needs the last one, not every one posted: a text seen before (x stale, then x and y, then x
 * again) is news again, and a key per text would keep the channel's last word on x and y.
 * Batch calls, as for the other marks: the sweeper's role has only those on this partition.
 */
const LAST_SUMMARY = 'summary:last';

export async function lastSummaryPosted(table: StateTable): Promise<string | undefined> {
  return (await batchGet(table, [itemKey(PK, LAST_SUMMARY)]))[0]?.hash?.S;
}

export async function markSummaryPosted(table: StateTable, hash: string, now: Date): Promise<void> {
  await batchPut(table, [
    {
      pk: { S: PK },
      sk: { S: LAST_SUMMARY },
      hash: { S: hash },
      postedAt: { S: now.toISOString() },
      expiresAt: { N: String(expiresAfterDays(now, 30)) },
    },
  ]);
}
