/**
 * One sweeper run at a time. EventBridge may start a run while the previous one is still
 * going (or retry one); two runs would race on the cursor and on the read-merge-write of the
 * last-seen index. A run takes a lease with a conditional put that expires with the run's
 * own deadline, so a crashed run blocks the next one for at most one function timeout.
 */
import { deleteIf, itemKey, putIf } from './dynamo.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const KEY = itemKey(`${ITEM_FAMILIES.sweeper}#lease`, 'run');

/** True when the lease was taken; false when another run holds it until after `nowMs`. */
export function acquireLease(
  table: StateTable,
  owner: string,
  nowMs: number,
  untilMs: number,
): Promise<boolean> {
  return putIf(
    table,
    {
      ...KEY,
      owner: { S: owner },
      until: { N: String(untilMs) },
      expiresAt: { N: String(Math.ceil(untilMs / 1000) + 3600) },
    },
    {
      expression: 'attribute_not_exists(pk) OR #until < :now',
      names: { '#until': 'until' },
      values: { ':now': { N: String(nowMs) } },
    },
  );
}

/** Gives the lease back; a lease another run took meanwhile is left alone. */
export async function releaseLease(table: StateTable, owner: string): Promise<void> {
  await deleteIf(table, KEY, {
    expression: '#owner = :owner',
    names: { '#owner': 'owner' },
    values: { ':owner': { S: owner } },
  });
}
