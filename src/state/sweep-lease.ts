/**
 * One sweeper run at a time. EventBridge may start a run while the previous one is still
 * going (or retry one); two runs would race on the cursor and on the read-merge-write of the
 * last-seen index. A run takes a lease with a conditional put that expires with the run's
 * own deadline, so a crashed run blocks the next one for at most one function timeout.
 */

import { itemKey } from './dynamo.js';
import { giveBackLease, LEASE, takeLease } from './lease.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const KEY = itemKey(`${ITEM_FAMILIES.sweeper}#lease`, 'run');

/** True when the lease was taken; false when another run holds it until after `nowMs` (src/state/lease.ts). */
export async function acquireLease(
  table: StateTable,
  owner: string,
  nowMs: number,
  untilMs: number,
): Promise<boolean> {
  const item = { ...KEY, expiresAt: { N: String(Math.ceil(untilMs / 1000) + 3600) } };
  return (await takeLease(table, LEASE, { item, owner, untilMs, nowMs })).taken;
}

/** Gives the lease back; a lease another run took meanwhile is left alone. */
export function releaseLease(table: StateTable, owner: string): Promise<void> {
  return giveBackLease(table, KEY, LEASE, owner);
}
