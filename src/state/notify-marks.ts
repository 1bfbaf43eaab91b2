/**
 * Which rule notifications were already posted, so a rerun after a crash does not post them
 * again. Marks are written right after the posts (30-day TTL): posting is at-least-once, and
 * only a crash between the post and its mark can repeat a message (never lose one).
 */

import { batchGet, batchPut, itemKey } from './dynamo.js';
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
