/**
 * Which comes first on a held request: a person's cancel, or the worker's own move (calling the
 * API for it, or recording how it ended). Each is a conditional write on the one held item, so
 * exactly one of them takes: a cancel that is marked is never followed by the API call nor by
 * another end, and a worker that marked first makes the cancel fail (its author hears why).
 */
import { getItem } from './dynamo.js';
import { updateIf } from './dynamo-update.js';
import { type CancelMark, cancelFromItem, heldItemKey as key } from './held.js';
import type { StateTable } from './table.js';

export type CancelMarked = 'marked' | 'not-held' | 'executing' | 'ending' | 'already-cancelled';

/**
 * Marks a held request cancelled, unless a worker has started to execute it or to record its
 * end (`startEndingHeld`, while that lasts): a cancel that succeeds is never followed by the API
 * call or by another end, a worker that started first makes the cancel fail. The mark's time
 * (`mark.at`) is the one an end's lease is judged by.
 */
export async function markCancelled(
  table: StateTable,
  requestId: string,
  mark: CancelMark,
): Promise<CancelMarked> {
  const now = { N: String(Date.parse(mark.at)) };
  const out = await updateIf(
    table,
    key(requestId),
    {
      expression: `SET cancelledBy = :by, cancelledAt = :at${mark.reason ? ', cancelReason = :reason' : ''}`,
      values: {
        ':by': { S: mark.by },
        ':at': { S: mark.at },
        ':now': now,
        ...(mark.reason ? { ':reason': { S: mark.reason } } : {}),
      },
    },
    {
      expression:
        'attribute_exists(pk) AND attribute_not_exists(executingBy) AND attribute_not_exists(reachedAt) AND attribute_not_exists(cancelledBy) AND (attribute_not_exists(endingUntil) OR endingUntil < :now)',
    },
  );
  if (out) return 'marked';
  const item = await getItem(table, key(requestId));
  if (!item) return 'not-held';
  if (item.cancelledBy) return 'already-cancelled';
  if (item.executingBy || item.reachedAt) return 'executing';
  return 'ending';
}

type Gate = { state: 'go' } | { state: 'cancelled'; cancel: CancelMark } | { state: 'gone' };

/** Sets `field` on the held item unless it was cancelled first; `gone` when no held item is left. */
async function gate(
  table: StateTable,
  requestId: string,
  field: string,
  value: { S: string } | { N: string },
) {
  const out = await updateIf(
    table,
    key(requestId),
    { expression: `SET ${field} = :value`, values: { ':value': value } },
    { expression: 'attribute_exists(pk) AND attribute_not_exists(cancelledBy)' },
  );
  if (out) return { state: 'go' } as Gate;
  const cancel = cancelFromItem(await getItem(table, key(requestId)));
  return (cancel ? { state: 'cancelled', cancel } : { state: 'gone' }) as Gate;
}

/**
 * A worker is about to call the API for a held request: it says so on the held item, unless
 * the request was cancelled first. `gone` when no held item is left (the request ended).
 */
export function startExecutingHeld(table: StateTable, requestId: string, owner: string): Promise<Gate> {
  return gate(table, requestId, 'executingBy', { S: owner });
}

/**
 * The worker (or the release tick, or an answer) is about to record how a held request ended
 * (a denial, a dry run's approval): it says so on the held item until `untilMs` (epoch ms, past
 * its invocation's end), unless a person cancelled it first. Its final is written only on `go`,
 * so a cancel and another end never both take: on `cancelled` the request ends as cancelled.
 * The mark is a lease: a writer that crashed before its final blocks cancels no longer after.
 */
export function startEndingHeld(table: StateTable, requestId: string, untilMs: number): Promise<Gate> {
  return gate(table, requestId, 'endingUntil', { N: String(untilMs) });
}

/**
 * An attempt for a held request may have reached the platform (a timeout in flight, a lost
 * answer): from now on the request cannot be cancelled, since nobody can promise that nothing
 * changed. Unlike `executingBy`, nothing but the request's end takes this mark off.
 */
export async function markReached(table: StateTable, requestId: string, at: Date): Promise<void> {
  await updateIf(
    table,
    key(requestId),
    { expression: 'SET reachedAt = :at', values: { ':at': { S: at.toISOString() } } },
    { expression: 'attribute_exists(pk)' },
  );
}

/**
 * The worker's attempt for a held request stopped before it could reach the platform (a 429, a
 * failure before sending, a full counter): the request can be cancelled again. Only that attempt
 * takes its mark back (a crashed one's stays until the next attempt: it may have reached it).
 */
export async function stopExecutingHeld(table: StateTable, requestId: string, owner: string): Promise<void> {
  await updateIf(
    table,
    key(requestId),
    { expression: 'REMOVE executingBy', values: { ':owner': { S: owner } } },
    { expression: 'executingBy = :owner' },
  );
}
