/**
 * Which comes first on a held request: a person's cancel, or the worker's own move (calling the
 * API for it, or recording how it ended). Each is a conditional write on the one held item, so
 * exactly one of them takes: a cancel that is marked is never followed by the API call nor by
 * another end, and a worker that marked first makes the cancel fail (its author hears why).
 * Which mark refuses which is declared once, in held-marks.ts; its subtle cases are said here.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { getItem } from './dynamo.js';
import { effectItemKey } from './effects.js';
import { type CancelMark, cancelFromItem } from './held.js';
import { markThatWon, takeOffMark, writeMark } from './held-marks.js';
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
  const written = await writeMark(table, requestId, {
    mark: 'cancelled',
    update: `SET cancelledBy = :by, cancelledAt = :at${mark.reason ? ', cancelReason = :reason' : ''}`,
    values: {
      ':by': { S: mark.by },
      ':at': { S: mark.at },
      ...(mark.reason ? { ':reason': { S: mark.reason } } : {}),
    },
    nowMs: Date.parse(mark.at),
  });
  if (written) return 'marked';
  const { item, won } = await markThatWon(table, requestId, 'cancelled');
  if (!item) return 'not-held';
  if (won === 'cancelled') return 'already-cancelled';
  if (won === 'executing' || won === 'reached') return 'executing';
  return 'ending';
}

type Gate = { state: 'go' } | { state: 'cancelled'; cancel: CancelMark } | { state: 'gone' };

/**
 * The executing gate: also `ending` while an ending lease (run out or not) is on the held item,
 * `denied` while a person's Deny marks it (`deniedBy`, src/state/held.ts `lookNow`), and `contended`.
 */
type ExecutingGate =
  | Gate
  | { state: 'ending'; untilMs: number }
  | { state: 'denied' }
  | { state: 'contended' };

/**
 * A worker is about to call the API for a held request: it says so on the held item, unless
 * the request was cancelled first. `gone` when no held item is left (the request ended).
 *
 * `ending` while an ending lease (`startEndingHeld`) is on the item, live or run out: its writer
 * may have written the request's final (a person's answer, say) and died before removing the held
 * record, and a change made now would contradict that end. The caller reads the final: if there is
 * one, it is the request's end; if not, a lease run out is cleared (`clearStaleEnding`) and the gate
 * tried again, and a live one waits (its writer is recording the end now).
 *
 * `denied` while a person's Deny marks the item (`deniedBy`, written after its veto and only while
 * no copy executes it): a copy of the request that decided before the veto must decide again (it
 * finds the veto). Not for an Approve click's copy (`byDeny: false`): a person's approval is no
 * automation, which is all a Deny stops.
 *
 * `contended` when refused three times with no refusing mark left to read back (marks coming and
 * going): the copy has not marked the item and must not call the API; it comes back shortly.
 */
export async function startExecutingHeld(
  table: StateTable,
  requestId: string,
  owner: string,
  byDeny = true,
): Promise<ExecutingGate> {
  // Three tries, as the ending gate: the mark that refused the write (a lease run out that another
  // copy cleared, say) may be taken off before the read-back. An item still there with no refusing
  // mark on it is no end of the request: answering `gone` let the copy call the API with no
  // executing mark on the item, so a cancel landing then was marked and told beside the change.
  for (let tries = 0; tries < 3; tries++) {
    const written = await writeMark(table, requestId, {
      mark: 'executing',
      update: 'SET executingBy = :value',
      values: { ':value': { S: owner } },
      ...(byDeny ? {} : { ignoring: ['denied'] as const }),
    });
    if (written) return { state: 'go' };
    // Read back alike for an Approve click's copy: a Deny is reported to it only when the mark that
    // refused it (a cancel, a lease) was taken off before the read.
    const { item, won } = await markThatWon(table, requestId, 'executing');
    const cancel = cancelFromItem(item);
    if (won === 'cancelled' && cancel) return { state: 'cancelled', cancel };
    if (won === 'ending') return { state: 'ending', untilMs: Number(item?.endingUntil?.N) };
    if (won === 'denied') return { state: 'denied' };
    if (!item) return { state: 'gone' };
  }
  // Three lost races in a row (marks coming and going): the copy comes back shortly, unmarked.
  return { state: 'contended' };
}

/**
 * Takes off an ending lease that ran out (`untilMs`, as read) with no final written under it: its
 * writer died before recording any end. Conditional on that same lease, so a lease set since (a
 * writer recording an end now) stays. The caller read no final after seeing the lease.
 */
export async function clearStaleEnding(
  table: StateTable,
  requestId: string,
  untilMs: number,
  nowMs: number,
): Promise<void> {
  await takeOffMark(
    table,
    requestId,
    'ending',
    { N: String(untilMs) },
    {
      expression: 'endingUntil < :now',
      values: { ':now': { N: String(nowMs) } },
    },
  );
}

/** The ending gate: also `executing` while another pass's executing mark is live (its call may be in flight). */
export type EndingGate = Gate | { state: 'executing'; untilMs: number };

/**
 * The worker (or the release tick, or an answer) is about to record how a held request ended
 * (a denial, a dry run's approval): it says so on the held item until `untilMs` (epoch ms, past
 * its invocation's end), unless a person cancelled it first. Its final is written only on `go`,
 * so a cancel and another end never both take: on `cancelled` the request ends as cancelled.
 * The mark is a lease: a writer that crashed before its final blocks cancels no longer after.
 *
 * Refused (`executing`) while a copy that passed the executing gate is live: its claim on the
 * request's `effect` is its own and still held, or completed (the change is made; that copy writes
 * the end): an end written now would be told beside a change made. Until `untilMs` at the latest.
 * A mark whose copy died (its claim run out or given back) is no refusal: the end is written, said
 * "may have been done" by its caller (the mark stays on the item). `ownRequest`: a mark of a copy of
 * that request is the caller's own (an Approve click's copy ending the question it executed).
 */
export async function startEndingHeld(
  table: StateTable,
  requestId: string,
  untilMs: number,
  by: { effect: string; nowMs: number; ownRequest?: string },
): Promise<EndingGate> {
  // Not in the table of marks (held-marks.ts): whose executing mark refuses the lease. One of a copy
  // of `ownRequest` is the caller's own; one whose copy died (its effect claim run out or given
  // back) is none, which only a read of the effect claim shows, so the write is tried again with
  // that owner allowed. Three tries: the mark may come and go between the write and the reads.
  let dead: string | undefined;
  for (let tries = 0; tries < 3; tries++) {
    const own = [by.ownRequest ? 'begins_with(executingBy, :mine)' : '', dead ? 'executingBy = :dead' : ''];
    const written = await writeMark(table, requestId, {
      mark: 'ending',
      update: 'SET endingUntil = :value',
      values: {
        ':value': { N: String(untilMs) },
        ...(by.ownRequest ? { ':mine': { S: `${by.ownRequest}/` } } : {}),
        ...(dead ? { ':dead': { S: dead } } : {}),
      },
      own: { executing: own.filter(Boolean).join(' OR ') },
    });
    if (written) return { state: 'go' };
    const { item, won } = await markThatWon(table, requestId, 'ending');
    const cancel = cancelFromItem(item);
    if (won === 'cancelled' && cancel) return { state: 'cancelled', cancel };
    if (!item) return { state: 'gone' };
    const owner = item.executingBy?.S;
    if (won !== 'executing' || owner === undefined) continue; // taken off since: tried again
    const live = liveUntil(await getItem(table, effectItemKey(by.effect)), owner, by.nowMs);
    if (live !== undefined) return { state: 'executing', untilMs: live };
    dead = owner;
  }
  // Three lost races in a row (marks coming and going): reported as executing, tried again later.
  return { state: 'executing', untilMs: by.nowMs };
}

/** Until when the effect claim `item` shows `owner` live: holding it, or having completed it (now). */
function liveUntil(item: Record<string, AttributeValue> | undefined, owner: string, nowMs: number) {
  if (item?.owner?.S !== owner) return undefined;
  if (item.status?.S === 'completed') return nowMs;
  const lockExpiresAt = Number(item.lockExpiresAt?.N ?? 0);
  return lockExpiresAt >= nowMs ? lockExpiresAt : undefined;
}

/**
 * An attempt for a held request may have reached the platform (a timeout in flight, a lost
 * answer): from now on the request cannot be cancelled, since nobody can promise that nothing
 * changed. Unlike `executingBy`, nothing but the request's end takes this mark off.
 */
export async function markReached(table: StateTable, requestId: string, at: Date): Promise<void> {
  await writeMark(table, requestId, {
    mark: 'reached',
    update: 'SET reachedAt = :at',
    values: { ':at': { S: at.toISOString() } },
  });
}

/**
 * The worker's attempt for a held request stopped before it could reach the platform (a 429, a
 * failure before sending, a full counter): the request can be cancelled again. Only that attempt
 * takes its mark back (a crashed one's stays until the next attempt: it may have reached it).
 */
export async function stopExecutingHeld(table: StateTable, requestId: string, owner: string): Promise<void> {
  await takeOffMark(table, requestId, 'executing', { S: owner });
}
