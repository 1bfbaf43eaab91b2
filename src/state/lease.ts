/**
 * The one shape of the state table's leases and claims (a telling or notice claim, the telling
 * claimed with a final, the sweeper's run lease, an effect claim): an item names its holder and
 * until when (epoch ms) it holds. Taken when nobody holds it or its holder's time ran out, given
 * back (or written over) only by its holder. Each lease keeps its own item and attribute names;
 * the conditions and the judgment "ran out" live here, once (test/state/leases.test.ts walks them).
 *
 * What no lease does: a holder's own live lease refuses it like anyone's (an owner is one attempt's:
 * nobody extends a lease), and a lease given back is deleted, whether it ran out or not.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  type Condition,
  conditionInput,
  getItem,
  type Item,
  type Key,
  unlessConditionFails,
} from './dynamo.js';
import { deleteIf } from './dynamo-delete.js';
import type { StateTable } from './table.js';

/** The attributes of a lease on its item: who holds it, and until when. */
export interface LeaseAttributes {
  owner: string;
  until: string;
}

/** The names most leases use. */
export const LEASE: LeaseAttributes = { owner: 'owner', until: 'until' };

/**
 * Whether a lease until `untilMs` ran out at `nowMs`: strictly after its until (at its until it
 * still holds), by the taker's own clock. The take's condition says the same (`#until < :now`).
 * Attribute names are written as `#<name>` in the conditions (`#owner = :owner`, `#tellOwner = :owner`).
 */
export const ranOut = (untilMs: number, nowMs: number): boolean => untilMs < nowMs;

export interface Holder {
  owner: string;
  untilMs: number;
}

/** The lease on `item` as stored, run out or not; undefined when it has no until (none, or a mark for good). */
export function holderOf(item: Item | undefined, at: LeaseAttributes): Holder | undefined {
  const until = item?.[at.until]?.N;
  return until === undefined ? undefined : { owner: item?.[at.owner]?.S ?? '', untilMs: Number(until) };
}

/** The lease on `item` when it still holds at `nowMs`. */
export function liveHolder(item: Item | undefined, at: LeaseAttributes, nowMs: number): Holder | undefined {
  const holder = holderOf(item, at);
  return holder && !ranOut(holder.untilMs, nowMs) ? holder : undefined;
}

/** The lease stored under `key` (consistent read), run out or not: who holds it after a refused take. */
export async function readLease(
  table: StateTable,
  key: Key,
  at: LeaseAttributes,
): Promise<Holder | undefined> {
  return holderOf(await getItem(table, key), at);
}

export interface LeaseTake {
  /** The item's key and its other attributes, put with the lease (the whole item is replaced). */
  item: Item;
  owner: string;
  untilMs: number;
  nowMs: number;
  /** Besides having run out, what a lease on the item must be to be taken over (an effect's: in progress). */
  overIf?: Condition;
  /** Answer the item replaced (how its earlier holder ended). */
  returnReplaced?: boolean;
}

/**
 * Takes the lease: puts `take.item` with it when no item has its key, or when the lease on it ran
 * out at `take.nowMs` (`ranOut`). An item without an until (a mark for good) is never taken over.
 * Refused, nothing is written and nothing read: who holds it reads with `readLease` (no
 * `ReturnValuesOnConditionCheckFailure`, which dynalite lacks).
 */
export async function takeLease(
  table: StateTable,
  at: LeaseAttributes,
  take: LeaseTake,
): Promise<{ taken: true; replaced: Item | undefined } | { taken: false }> {
  const ranOutNow = `#${at.until} < :now`;
  const over = take.overIf ? `(${take.overIf.expression} AND ${ranOutNow})` : ranOutNow;
  const condition = {
    expression: `attribute_not_exists(pk) OR ${over}`,
    names: { [`#${at.until}`]: at.until, ...take.overIf?.names },
    values: { ':now': { N: String(take.nowMs) }, ...take.overIf?.values },
  };
  const item = { ...take.item, [at.owner]: { S: take.owner }, [at.until]: { N: String(take.untilMs) } };
  const put = new PutItemCommand({
    TableName: table.tableName,
    Item: item,
    ...conditionInput(condition),
    ...(take.returnReplaced ? { ReturnValues: 'ALL_OLD' as const } : {}),
  });
  const out = await unlessConditionFails(() => table.client.send(put));
  return out ? { taken: true, replaced: out.Attributes } : { taken: false };
}

/** The condition of a write only the holder makes: `owner` holds the lease (and `also`, when given). */
export function ifMine(at: LeaseAttributes, owner: string, also?: Condition): Condition {
  return {
    expression: `#${at.owner} = :owner${also ? ` AND ${also.expression}` : ''}`,
    names: { [`#${at.owner}`]: at.owner, ...also?.names },
    values: { ':owner': { S: owner }, ...also?.values },
  };
}

/** Gives the lease back (deletes its item) while `owner` holds it, run out or not; else leaves it alone. */
export async function giveBackLease(
  table: StateTable,
  key: Key,
  at: LeaseAttributes,
  owner: string,
  also?: Condition,
): Promise<void> {
  await deleteIf(table, key, ifMine(at, owner, also));
}
