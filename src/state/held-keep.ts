/**
 * Held records through a long pause. Every held record carries the table's TTL (`expiresAt`,
 * KEEP_DAYS after the worker last held it), which the worker's next look writes again. While
 * automation is paused there is no next look: the tick sends nothing back, so after a pause of
 * more than KEEP_DAYS DynamoDB deleted every held request, and `resume` released none of them and
 * told nobody (their trail still said "held until someone resumes"). The tick therefore moves the
 * TTL of each held record on while paused, once it comes within KEEP_AHEAD_DAYS.
 */
import { updateIf } from './dynamo-update.js';
import { KEEP_DAYS } from './held.js';
import { type HeldEntry, heldEntryPages } from './held-list.js';
import { heldItemKey } from './held-marks.js';
import { expiresAfterDays, type StateTable } from './table.js';

/** A record's TTL is moved on once it is this close: about one write per record a week of pause. */
const KEEP_AHEAD_DAYS = 7;

/** True when the tick should move on this record's TTL now (while paused). */
export function expiresSoon(entry: Pick<HeldEntry, 'expiresAt'>, now: Date): boolean {
  return entry.expiresAt !== undefined && entry.expiresAt < expiresAfterDays(now, KEEP_AHEAD_DAYS);
}

export interface KeepOptions {
  /**
   * The held entries that expire soon, from a listing the caller made anyway (the release tick's):
   * the partition is then not read a second time. Absent, it is listed here (a projection, no cap).
   */
  expiring?: readonly HeldEntry[];
  /** False once the invocation must stop starting writes; the rest are moved by a later tick. */
  timeLeft?: () => boolean;
}

/**
 * Moves on the TTL of every held record that would expire soon: how many were moved, and how many
 * were `left` for want of time (they still have KEEP_AHEAD_DAYS: a later tick moves them).
 */
export async function keepHeldThroughPause(
  table: StateTable,
  now: Date,
  options: KeepOptions = {},
): Promise<{ kept: number; left: number }> {
  const expiring = options.expiring ?? (await listExpiring(table, now));
  let kept = 0;
  let left = 0;
  for (const entry of expiring) {
    if (options.timeLeft && !options.timeLeft()) {
      left++;
      continue;
    }
    // Never past an end: an ended one is gone, and must not come back as a bare item.
    const moved = await updateIf(
      table,
      heldItemKey(entry.requestId),
      { expression: 'SET expiresAt = :e', values: { ':e': { N: String(expiresAfterDays(now, KEEP_DAYS)) } } },
      { expression: 'attribute_exists(pk)' },
    );
    if (moved) kept++;
  }
  return { kept, left };
}

async function listExpiring(table: StateTable, now: Date): Promise<HeldEntry[]> {
  const expiring: HeldEntry[] = [];
  for await (const page of heldEntryPages(table))
    expiring.push(...page.filter((entry) => expiresSoon(entry, now)));
  return expiring;
}
