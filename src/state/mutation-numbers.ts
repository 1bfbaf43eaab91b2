/**
 * The numbers of the shared mutation budget's tickets (src/state/mutation-budget.ts), and what
 * the counter item knows about their age. A module of its own because the counter carries a
 * proof the tickets cannot: a ticket's item may be missing because its holder has not written
 * it yet (it counts: the holder may send) or because it expired long ago (it does not), and
 * only the time of the numbers tells the two apart. Taking two missing items in a row for
 * expired ones admitted more than the limit when two holders were slow to write theirs.
 *
 * So the counter keeps `takenAt` (the last take) and a mark (`markN` was taken at `markAt`).
 * Every number up to `oldThrough` was taken so long ago (`staleAfterMs`: the longest hold plus
 * the longest window) that its request has ended and its window passed: its slot is free,
 * whether its item is there or not, and nobody reads it. The take that finds the budget idle
 * that long moves `oldThrough` to the last number; the take that finds the mark that old moves
 * it to the mark and sets a new one. Either is one conditional update like the common take,
 * tried after it failed: at most once per `staleAfterMs`. Numbers above `oldThrough` were taken
 * less than 4 × `staleAfterMs` ago, and tickets are kept longer than that (their TTL), so a
 * missing one above it is a holder that has not written yet (or stopped): voided, never free.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Item } from './dynamo.js';
import { itemKey, unlessConditionFails } from './dynamo.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const PK = `${ITEM_FAMILIES.budget}#mutations`;
export const COUNTER = itemKey(PK, 'counter');
export const ticketKey = (n: number) => itemKey(PK, ticketSk(n));
export const ticketSk = (n: number) => `ticket#${String(n).padStart(15, '0')}`;

/**
 * The common take, then the two that move `oldThrough` (no counter yet or an idle budget; an old
 * mark), and the first take on a counter the previous version kept (`n` alone): it sets a mark
 * but says nothing is old, since that version's tickets may have been sent a moment ago.
 */
const TAKES = [
  { update: 'ADD n :one SET takenAt = :now', condition: 'markAt > :staleBefore' },
  {
    update:
      'SET oldThrough = if_not_exists(n, :zero), n = if_not_exists(n, :zero) + :one, ' +
      'markN = if_not_exists(n, :zero) + :one, markAt = :now, takenAt = :now',
    condition: 'attribute_not_exists(n) OR takenAt <= :staleBefore',
  },
  {
    update: 'SET oldThrough = markN, markN = n + :one, markAt = :now, n = n + :one, takenAt = :now',
    condition: 'markAt <= :staleBefore',
  },
  {
    update: 'SET markN = n + :one, markAt = :now, n = n + :one, takenAt = :now',
    condition: 'attribute_exists(n) AND attribute_not_exists(markAt)',
  },
];
const VALUE_NAMES = [':one', ':zero', ':now', ':staleBefore'] as const;
/** The values each take's expressions name, worked out once: DynamoDB refuses unused ones. */
const NAMED = TAKES.map((take) =>
  VALUE_NAMES.filter((name) => `${take.update} ${take.condition}`.includes(name)),
);

/** Rounds of the takes before giving up: each fails only when another container's take changed the counter's age. */
const TAKE_ROUNDS = 5;

/** The next number: the counter item as this take left it (`n`, the pace's last cut, `oldThrough`). */
export async function takeNumber(table: StateTable, now: number, staleAfterMs: number): Promise<Item> {
  const values = {
    ':one': { N: '1' },
    ':zero': { N: '0' },
    ':now': { N: String(now) },
    ':staleBefore': { N: String(now - staleAfterMs) },
  };
  for (let round = 0; round < TAKE_ROUNDS; round++) {
    for (const [i, take] of TAKES.entries()) {
      const out = await unlessConditionFails(() =>
        table.client.send(
          new UpdateItemCommand({
            TableName: table.tableName,
            Key: COUNTER,
            UpdateExpression: take.update,
            ConditionExpression: take.condition,
            ExpressionAttributeValues: Object.fromEntries(
              (NAMED[i] as readonly (keyof typeof values)[]).map((name) => [name, values[name]]),
            ),
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      if (out?.Attributes) return out.Attributes;
    }
  }
  throw new Error(`could not take a mutation budget number in ${TAKE_ROUNDS} rounds`);
}

/** Every number up to this one is past: its slot is free and its item need not be read. */
export function oldThrough(counter: Item | undefined): number {
  const old = Number(counter?.oldThrough?.N);
  return Number.isSafeInteger(old) ? old : 0;
}

/** A ticket as its successors see it: ended at `doneAt` (SKIPPED: never sent), or in flight until `doneBy` at the latest. */
export interface Ticket {
  doneAt: number | undefined;
  doneBy: number;
}

/** A slot's last use: ended then, still in flight (until `doneBy` at the latest), or free. */
export type Use = { endedAt: number } | { inFlightUntil: number } | { free: true };
export const FREE: Use = { free: true };
/** `doneAt` of a ticket that never sent: its slot is still its predecessor's. */
export const SKIPPED = -1;

/** A ticket's use of its slot: ended, or in flight until its `doneBy`; undefined when it never sent. */
export function useOf(found: Ticket | 'missing', now: number): Use | undefined {
  if (found === 'missing' || found.doneAt === SKIPPED) return undefined;
  if (found.doneAt !== undefined) return { endedAt: found.doneAt };
  return found.doneBy <= now ? { endedAt: found.doneBy } : { inFlightUntil: found.doneBy };
}

export function ticketOf(item: Item): Ticket {
  const doneAt = item.doneAt?.N === undefined ? undefined : Number(item.doneAt.N);
  return { doneAt, doneBy: Number(item.doneBy?.N ?? 0) };
}

/** Tickets of one slot's chain read in one batch; missing tickets in a row that mean "expired". */
export const CHAIN_BATCH = 25;
export const MAX_MISSING_IN_A_ROW = 25;
/** Numbers the previous version took this close to the upgrade may still have a holder writing. */
const LEGACY_MARGIN = 500;

/**
 * Below this number, a run of MAX_MISSING_IN_A_ROW missing tickets expired: numbers the previous
 * version took (a counter with a mark but no `oldThrough` yet, for its first `staleAfterMs`), well
 * before the upgrade. Anywhere else a missing ticket is a holder still to write it: never free.
 */
export function expiredBelow(counter: Item | undefined): number {
  if (counter?.oldThrough?.N !== undefined) return 0;
  const mark = Number(counter?.markN?.N);
  return Number.isSafeInteger(mark) ? mark - LEGACY_MARGIN : 0;
}

/** Up to CHAIN_BATCH numbers of one slot's chain from `p` down, above `old`. */
export function chainFrom(p: number, step: number, old: number): number[] {
  const chain: number[] = [];
  for (let q = p; q > old && chain.length < CHAIN_BATCH; q -= step) chain.push(q);
  return chain;
}

/** Missing, or voided by a waiter before (a skipped ticket with no `doneBy`): the missing one it was. */
export function wasMissing(found: Ticket | 'missing'): boolean {
  return found === 'missing' || (found.doneAt === SKIPPED && found.doneBy === 0);
}
