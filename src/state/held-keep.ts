/**
 * Held records through a long pause. Every held record carries the table's TTL (`expiresAt`,
 * KEEP_DAYS after the worker last held it), which the worker's next look writes again. While
 * automation is paused there is no next look: the tick sends nothing back, so after a pause of
 * more than KEEP_DAYS DynamoDB deleted every held request, and `resume` released none of them and
 * told nobody (their trail still said "held until someone resumes"). The tick therefore moves the
 * TTL of each held record on while paused, once it comes within KEEP_AHEAD_DAYS.
 */
import { queryPartition } from './dynamo-query.js';
import { updateIf } from './dynamo-update.js';
import { KEEP_DAYS } from './held.js';
import { HELD_PK } from './held-marks.js';
import { expiresAfterDays, type StateTable } from './table.js';

/** A record's TTL is moved on once it is this close: about one write per record a week of pause. */
const KEEP_AHEAD_DAYS = 7;

/** Moves on the TTL of every held record that would expire soon; how many were moved. */
export async function keepHeldThroughPause(table: StateTable, now: Date): Promise<number> {
  const items = await queryPartition(table, HELD_PK, { maxPages: 100 });
  const soon = expiresAfterDays(now, KEEP_AHEAD_DAYS);
  let kept = 0;
  for (const item of items) {
    const expiresAt = Number(item.expiresAt?.N);
    // Only requests (not an item holding only marks), and never past an end: an ended one is gone.
    if (!item.request?.S || !item.pk || !item.sk || !(expiresAt < soon)) continue;
    const moved = await updateIf(
      table,
      { pk: item.pk, sk: item.sk },
      { expression: 'SET expiresAt = :e', values: { ':e': { N: String(expiresAfterDays(now, KEEP_DAYS)) } } },
      { expression: 'attribute_exists(pk)' },
    );
    if (moved) kept++;
  }
  return kept;
}
