/**
 * The release tick's marks on a held record: sent back (once per tick, and not again for a
 * while), and a send that failed taken back, so that only sends that reached the queue count
 * towards a wait being stuck (src/state/held.ts, `isStuck`).
 */
import { updateIf } from './dynamo-update.js';
import { type HeldRecord, heldItemKey } from './held.js';
import type { StateTable } from './table.js';

/**
 * Marks a record as sent back by the release tick, only if it is still the wait the tick read
 * (same `since`: a worker that re-held the request meanwhile wrote a new wait, left alone) and
 * no other tick sent it back since that read (same `releasedAt`: two ticks at once send it once).
 * False when the record changed or is gone.
 */
export async function markReleased(table: StateTable, held: HeldRecord, at: Date): Promise<boolean> {
  const last = held.releasedAt;
  const out = await updateIf(
    table,
    heldItemKey(held.requestId),
    {
      expression: 'SET releasedAt = :at ADD releases :one',
      values: {
        ':at': { S: at.toISOString() },
        ':since': { S: held.since },
        ':one': { N: '1' },
        ...(last ? { ':last': { S: last } } : {}),
      },
    },
    { expression: `since = :since AND ${last ? 'releasedAt = :last' : 'attribute_not_exists(releasedAt)'}` },
  );
  return out !== undefined;
}

/**
 * A send that failed takes back its count, not its time (the retry still waits): only on the
 * mark this tick made (same `since` and `releasedAt`). A queue down for half an hour would
 * otherwise make the wait stuck for good.
 */
export async function unmarkReleased(table: StateTable, held: HeldRecord, at: Date): Promise<void> {
  await updateIf(
    table,
    heldItemKey(held.requestId),
    {
      expression: 'ADD releases :minus',
      values: {
        ':minus': { N: '-1' },
        ':zero': { N: '0' },
        ':at': { S: at.toISOString() },
        ':since': { S: held.since },
      },
    },
    { expression: 'since = :since AND releasedAt = :at AND releases > :zero' },
  );
}
