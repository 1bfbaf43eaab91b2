/**
 * Held requests: one record per request that waits (paused, outside its window, over a limit,
 * waiting for an answer to "ask"), in one partition: `held` lists them and the release tick finds
 * the due ones with one query. A record says who asked for what, why it waits and when it is
 * looked at again, and carries the request itself, which the release tick (not a delayed queue
 * message) brings back. The worker writes it when the request starts to wait, deletes it at the end.
 */
import type { ActionRequest } from '../actions/request.js';
import { getItem, type Item } from './dynamo.js';
import { deleteItem } from './dynamo-delete.js';
import { queryPartition } from './dynamo-query.js';
import { updateIf } from './dynamo-update.js';
import { heldItemKey as key, HELD_PK as PK, writeMark } from './held-marks.js';
import { expiresAfterDays, type StateTable } from './table.js';

/** Why a request waits. */
export type HeldWhy = 'paused' | 'window' | 'limit' | 'ask';

export interface HeldRecord {
  requestId: string;
  action: string;
  target: string;
  requester: string;
  why: HeldWhy;
  rule: string;
  reason: string;
  /** When the request is looked at again (ISO); none for a pause (released by `resume`). */
  nextLook?: string;
  /**
   * The short digest of the policy whose decision holds it (src/policy/digest.ts): its next look
   * and its question are that policy's, though another may be deployed since. Absent on older records.
   */
  policyDigest?: string;
  /** When it started to wait this time (ISO). */
  since: string;
  /** The request as it will be sent again (same id, same `requestedAt`). */
  request: ActionRequest;
  /** When the release tick last sent it back (ISO); it is not sent again for a while. */
  releasedAt?: string;
  /** How often the tick sent this wait back without the worker holding it anew or ending it. */
  releases?: number;
  /** The Slack user whose Approve click answered this question, and when (src/state/held-answer.ts). */
  answeredBy?: string;
  answeredAt?: string;
  /** Set by `/autopilot cancel`: the worker ends the request as cancelled when it next sees it. */
  cancel?: CancelMark;
  /** An attempt for it (or for the answer to it) may have reached the platform (`markReached`). */
  reachedAt?: string;
  /** A copy started to call the API for it and has not said it stopped (`startExecutingHeld`). */
  executingBy?: string;
}

/** Who cancelled a held request, when and why. */
export interface CancelMark {
  by: string;
  at: string;
  reason?: string;
}

export { heldItemKey } from './held-marks.js'; // for readers that batch it with other items (the worker)

/**
 * A forgotten record (a worker that never came back) leaves by itself after this long. While
 * automation is paused nothing writes a record again: the release tick keeps them (held-keep.ts).
 */
export const KEEP_DAYS = 30;

/**
 * What became of writing a wait: `held`, and whether this write `began` the holding (no held
 * request was stored before it: not a released, retried or redelivered copy held again);
 * `cancelled` when `/autopilot cancel` marked it since this copy read it (the caller ends it as
 * cancelled); `ended` when it ended meanwhile (its final replays).
 */
export type HoldOutcome =
  | { state: 'held'; began: boolean }
  | { state: 'cancelled'; cancel: CancelMark }
  | { state: 'ended' };

/**
 * Writes the wait, replacing the one a copy wrote before (a redelivered or released copy held
 * again), but never over a cancel mark (a put would erase it between the worker's read and write)
 * nor, when the copy read a held item (`existing`), after it is gone: the request ended meanwhile.
 */
export async function holdRequest(
  table: StateTable,
  held: HeldRecord,
  now: Date,
  existing = false,
): Promise<HoldOutcome> {
  const fields: Item = {
    requestId: { S: held.requestId },
    action: { S: held.action },
    target: { S: held.target },
    requester: { S: held.requester },
    why: { S: held.why },
    rule: { S: held.rule },
    reason: { S: held.reason },
    since: { S: held.since },
    request: { S: JSON.stringify(held.request) },
    expiresAt: { N: String(expiresAfterDays(now, KEEP_DAYS)) },
    ...(held.nextLook ? { nextLook: { S: held.nextLook } } : {}),
    ...(held.policyDigest ? { policyDigest: { S: held.policyDigest } } : {}),
  };
  // An update, not a put: the wait's fields anew, the last wait's releases off. A cancel mark,
  // `reachedAt` and `executingBy` stay (their copy may be calling the API now: an Approve's copy).
  const names = Object.fromEntries(Object.keys(fields).map((name, i) => [`#f${i}`, name]));
  const values = Object.fromEntries(Object.values(fields).map((value, i) => [`:f${i}`, value]));
  const set = Object.keys(names).map((name, i) => `${name} = :f${i}`);
  const gone = [
    'releasedAt',
    'releases',
    ...(held.nextLook ? [] : ['nextLook']),
    ...(held.policyDigest ? [] : ['policyDigest']),
  ];
  const written = await updateIf(
    table,
    key(held.requestId),
    { expression: `SET ${set.join(', ')} REMOVE ${gone.join(', ')}`, values, returnOld: true },
    { expression: `${existing ? 'attribute_exists(pk) AND ' : ''}attribute_not_exists(cancelledBy)`, names },
  );
  // Began when no request was stored before: the item was absent, or held only a webhook's marks.
  if (written) return { state: 'held', began: written.Attributes?.request === undefined };
  // Marks are never taken off an item; only ending the request deletes it.
  const cancel = cancelFromItem(await getItem(table, key(held.requestId)));
  return cancel ? { state: 'cancelled', cancel } : { state: 'ended' };
}

/** The request ended (done, denied, cancelled, ...): it is no longer held. */
export async function endHold(table: StateTable, requestId: string): Promise<void> {
  await deleteItem(table, key(requestId));
}

export function heldFromItem(item: Item): HeldRecord | undefined {
  const requestId = item.requestId?.S;
  const body = item.request?.S;
  if (!requestId || !body) return undefined;
  const held: HeldRecord = {
    requestId,
    action: item.action?.S ?? '',
    target: item.target?.S ?? '',
    requester: item.requester?.S ?? '',
    why: (item.why?.S ?? 'window') as HeldWhy,
    rule: item.rule?.S ?? '',
    reason: item.reason?.S ?? '',
    since: item.since?.S ?? '',
    request: JSON.parse(body) as ActionRequest,
  };
  if (item.nextLook?.S) held.nextLook = item.nextLook.S;
  if (item.policyDigest?.S) held.policyDigest = item.policyDigest.S;
  if (item.releasedAt?.S) held.releasedAt = item.releasedAt.S;
  if (item.releases?.N) held.releases = Number(item.releases.N);
  if (item.answeredBy?.S) held.answeredBy = item.answeredBy.S;
  if (item.answeredAt?.S) held.answeredAt = item.answeredAt.S;
  if (item.reachedAt?.S) held.reachedAt = item.reachedAt.S;
  if (item.executingBy?.S) held.executingBy = item.executingBy.S;
  const cancel = cancelFromItem(item);
  if (cancel) held.cancel = cancel;
  return held;
}

/** The cancel mark of a held item, if any (the worker reads it with the request's state). */
export function cancelFromItem(item: Item | undefined): CancelMark | undefined {
  if (!item?.cancelledBy?.S) return undefined;
  const mark: CancelMark = { by: item.cancelledBy.S, at: item.cancelledAt?.S ?? '' };
  if (item.cancelReason?.S) mark.reason = item.cancelReason.S;
  return mark;
}

/** One held request, or undefined when it is not held (never was, or ended). */
export async function readHeld(table: StateTable, requestId: string): Promise<HeldRecord | undefined> {
  const item = await getItem(table, key(requestId));
  return item ? heldFromItem(item) : undefined;
}

/**
 * After this many sends that never came back (each dead-lettered, say), the tick stops sending
 * a wait back: it stays listed as stuck, and the DLQ holds the copies with their reasons.
 */
export const MAX_RELEASES = 3;

export function isStuck(held: Pick<HeldRecord, 'releases'>): boolean {
  return (held.releases ?? 0) >= MAX_RELEASES;
}

/** How `held` shows when a request is looked at again. */
export function nextLookText(held: HeldRecord): string {
  if (isStuck(held)) return `stuck: sent back ${held.releases} times (see the DLQ)`;
  if (held.cancel) return 'cancelled, ending';
  if (held.nextLook) return held.nextLook;
  return held.why === 'paused' ? 'on resume' : '';
}

/**
 * Every held request with its body, oldest wait first, for `autopilot held` (a person's read, not
 * the worker's: the release tick pages a projection, held-list.ts). No page cap, which silently
 * left out the requests whose ids sort last; the Query's own guard throws rather than stop early.
 */
export async function listHeld(table: StateTable): Promise<HeldRecord[]> {
  const items = await queryPartition(table, PK);
  return items
    .map(heldFromItem)
    .filter((held): held is HeldRecord => held !== undefined)
    .sort((a, b) => a.since.localeCompare(b.since) || a.requestId.localeCompare(b.requestId));
}

/**
 * A question was answered with Deny: its held request is looked at at once (the next tick
 * sends it back and the worker ends it by the veto) rather than at its hourly look. False, and
 * nothing written, when it is no open question: gone, cancelled, or already approved by a click.
 *
 * `deniedBy` (the Deny's second look, once its veto is written): the Deny's mark too, only while no
 * copy holds the executing mark (`executingBy`, `reachedAt`): a copy that decided "approve" before
 * the veto is then refused at its executing gate (src/state/held-gates.ts), so a Deny told as the
 * answer is never followed by the change. False while a copy is executing it (the Deny is too late).
 */
export async function lookNow(
  table: StateTable,
  requestId: string,
  at: Date,
  deniedBy?: string,
): Promise<boolean> {
  const when = { S: at.toISOString() };
  // The first look (before the veto) yields only to what closed the question: a cancel, a click's answer.
  return writeMark(
    table,
    requestId,
    deniedBy
      ? {
          mark: 'denied',
          update: 'SET nextLook = :at, deniedBy = :by, deniedAt = :at',
          values: { ':at': when, ':by': { S: deniedBy } },
        }
      : {
          mark: 'denied',
          update: 'SET nextLook = :at',
          values: { ':at': when },
          ignoring: ['executing', 'reached'],
        },
  );
}
