/**
 * At-most-once claims on effects (action + target + phase, see `effectKey`). Before the worker
 * mutates anything it claims the effect with a conditional put: one item per effect, status
 * `in-progress` with a lock expiry a little beyond the worker's timeout (so a crashed worker's
 * claim frees itself), then `completed` with the outcome once the mutation happened, which later
 * requests replay instead of calling the API again. A call that ended without a mutation (stale,
 * refused, transient) gives the claim back: a phase that was not yet current may be later. Works on DynamoDB and on dynalite alike: no transactions and no
 * `ReturnValuesOnConditionCheckFailure`; after a failed condition we read the item consistently.
 *
 * The claim is a lease (src/state/lease.ts: `owner`, until `lockExpiresAt`) with states of its own,
 * kept here: a completed effect is never taken over nor given back, and its completion is no lease
 * write (`completeEffect`); a claim given back after a call that may have reached the platform
 * stays, run out (`releaseReached`).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { getItem, putIf } from './dynamo.js';
import { giveBackLease, ifMine, type LeaseAttributes, liveHolder, takeLease } from './lease.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

/** What a completed effect remembers: enough to tell people again what happened. */
export interface StoredOutcome {
  result: string;
  reason: string;
  rule: string;
  requestId: string;
  at: string;
}

export type EffectState =
  | { status: 'free' }
  | { status: 'in-progress'; owner: string; lockExpiresAt: number }
  | { status: 'completed'; outcome: StoredOutcome };

export type ClaimResult =
  | {
      claimed: true;
      /**
       * An earlier claim of this effect ended without saying that nothing reached the platform: a
       * copy crashed mid-call (its lock expired) or its call may have reached it (`releaseReached`).
       * That call may have made the change this one is about to make.
       */
      earlierMayHaveReached: boolean;
    }
  | { claimed: false; state: Exclude<EffectState, { status: 'free' }> };

const SK = 'claim';
/** Completed effects are kept as long as audit records (90 days); DynamoDB TTL removes them. */
const KEEP_DAYS = 90;

/** The effect item's key, for readers that batch it with other items. */
export function effectItemKey(effect: string) {
  return { pk: { S: `${ITEM_FAMILIES.effect}#${effect}` }, sk: { S: SK } };
}
const key = effectItemKey;
const CLAIM: LeaseAttributes = { owner: 'owner', until: 'lockExpiresAt' };
/** What a claim is while a lease: in progress (never completed). */
const IN_PROGRESS = {
  expression: '#status = :inProgress',
  names: { '#status': 'status' },
  values: { ':inProgress': { S: 'in-progress' } },
};

/**
 * Locks are about processes and retries, not about policy time, so they use the wall clock
 * (epoch ms), never an injected policy clock.
 */

/** Reads the current state of an effect (consistent read). An expired lock reads as free. */
export async function readEffect(
  table: StateTable,
  effect: string,
  nowMs = Date.now(),
): Promise<EffectState> {
  return effectFromItem(await getItem(table, key(effect)), nowMs);
}

/** The effect's state from a stored item (or its absence) at wall-clock `nowMs`. */
export function effectFromItem(
  Item: Record<string, AttributeValue> | undefined,
  nowMs = Date.now(),
): EffectState {
  if (!Item) return { status: 'free' };
  if (Item.status?.S === 'completed' && Item.outcome?.S) {
    return { status: 'completed', outcome: JSON.parse(Item.outcome.S) as StoredOutcome };
  }
  const holder = liveHolder(Item, CLAIM, nowMs);
  return holder
    ? { status: 'in-progress', owner: holder.owner, lockExpiresAt: holder.untilMs }
    : { status: 'free' };
}

/**
 * Whether a call for `requestId` may have reached the platform with no outcome stored: the
 * effect's claim is neither completed nor given back clean (one that crashed mid-call, one whose
 * call may have reached it: `releaseReached`, or a copy of this very request calling now). The
 * test a claim makes (`earlierMayHaveReached`), readable before any claim: a denial then must say
 * so. Another request's live claim is not one: that request has made no call for this one, and
 * tells its own outcome (it may yet stop short: a 429, a full counter), so a denial of this one
 * is a plain denial.
 */
export function claimMayHaveReached(
  Item: Record<string, AttributeValue> | undefined,
  requestId: string,
  nowMs: number,
): boolean {
  if (Item?.status?.S !== 'in-progress') return false;
  const holder = liveHolder(Item, CLAIM, nowMs);
  if (!holder) return true;
  return claimRequestId(Item) === requestId;
}

/** The request whose claim (or completion) the item is: its owner is `<request id>/<message id>/<uuid>` (src/worker/process-record.ts). */
export function claimRequestId(Item: Record<string, AttributeValue> | undefined): string | undefined {
  const owner = Item?.owner?.S;
  return owner === undefined ? undefined : ownerRequestId(owner);
}

/** The request of a claim's `owner` (`<request id>/<message id>/<uuid>`; a request id may hold slashes). */
export function ownerRequestId(owner: string): string {
  return owner.split('/').slice(0, -2).join('/');
}

/**
 * Claims `effect` for `owner` until `lockExpiresAt` (epoch ms). Succeeds when there is no item
 * or when a previous claim's lock has expired; otherwise tells what holds it.
 */
export async function claimEffect(
  table: StateTable,
  effect: string,
  claim: { owner: string; lockExpiresAt: number; nowMs?: number },
): Promise<ClaimResult> {
  const nowMs = claim.nowMs ?? Date.now();
  const now = new Date(nowMs);
  // A condition failure followed by a vanished item (released meanwhile) is retried; bounded.
  for (let attempt = 0; attempt < 3; attempt++) {
    const item = {
      ...key(effect),
      status: { S: 'in-progress' },
      claimedAt: { S: now.toISOString() },
      expiresAt: { N: String(expiresAfterDays(now, KEEP_DAYS)) },
    };
    // Taken over only in progress (a completed effect is replayed). The replaced item tells whether
    // an earlier claim ended without letting go.
    const take = { item, owner: claim.owner, untilMs: claim.lockExpiresAt, nowMs, overIf: IN_PROGRESS };
    const claimed = await takeLease(table, CLAIM, { ...take, returnReplaced: true });
    if (claimed.taken)
      return { claimed: true, earlierMayHaveReached: claimed.replaced?.status?.S === 'in-progress' };
    const state = await readEffect(table, effect, nowMs);
    if (state.status !== 'free') return { claimed: false, state };
  }
  // Three lost races in a row: report it as busy so the record is retried later.
  return { claimed: false, state: { status: 'in-progress', owner: '', lockExpiresAt: nowMs } };
}

/**
 * Marks the effect completed: the mutation happened, and every later request for the same
 * effect is told so instead of calling again. Keeps an outcome another owner already stored.
 * No lease write (src/state/lease.ts): the change was made, so it is written over whoever's claim
 * is there now, one taken over after this claim ran out included.
 */
export async function completeEffect(
  table: StateTable,
  effect: string,
  owner: string,
  outcome: StoredOutcome,
  now: Date,
): Promise<boolean> {
  return putIf(
    table,
    {
      ...key(effect),
      status: { S: 'completed' },
      owner: { S: owner },
      outcome: { S: JSON.stringify(outcome) },
      completedAt: { S: now.toISOString() },
      expiresAt: { N: String(expiresAfterDays(now, KEEP_DAYS)) },
    },
    {
      expression: 'attribute_not_exists(pk) OR #owner = :owner OR #status = :inProgress',
      names: { '#owner': 'owner', '#status': 'status' },
      values: { ':owner': { S: owner }, ':inProgress': { S: 'in-progress' } },
    },
  );
}

/**
 * A claim given back after a call that may have reached the platform (`releaseReached`): the item
 * is kept for its mark, which deleting it would erase (the next claim would hear "nothing reached").
 */
const NOT_REACHED = {
  expression: `${IN_PROGRESS.expression} AND attribute_not_exists(reachedAt)`,
  names: IN_PROGRESS.names,
  values: IN_PROGRESS.values,
};

/**
 * Gives a claim back when nothing reached the platform, so a retry may claim it again. Only the
 * owner can, and not once `releaseReached` marked it: that mark stays whoever gives it back later.
 */
export function releaseEffect(table: StateTable, effect: string, owner: string): Promise<void> {
  return giveBackLease(table, key(effect), CLAIM, owner, NOT_REACHED);
}

/**
 * Gives a claim back after a call that may have reached the platform (a timeout in flight, a
 * 5xx, a lost answer): the lock ends now, but the item stays, so the next claim learns that an
 * earlier call may already have made the change (`earlierMayHaveReached`). Only the owner can.
 */
export async function releaseReached(
  table: StateTable,
  effect: string,
  owner: string,
  now: Date,
): Promise<void> {
  await putIf(
    table,
    {
      ...key(effect),
      status: { S: 'in-progress' },
      owner: { S: owner },
      lockExpiresAt: { N: '0' },
      reachedAt: { S: now.toISOString() },
      expiresAt: { N: String(expiresAfterDays(now, KEEP_DAYS)) },
    },
    ifMine(CLAIM, owner, IN_PROGRESS),
  );
}
