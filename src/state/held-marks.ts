/**
 * The marks on a held item (src/state/held.ts) and which of them exclude which: one mechanism,
 * "the first of two marks that exclude each other wins". Each mark is written by its own
 * conditional UpdateItem (held-gates.ts, held-answer.ts, held.ts `lookNow`) whose condition is
 * built here from the table below, and a refused writer reads back here which mark won.
 *
 * What does not fit a table stays with its writer, said there: the ending gate judges an executing
 * mark live by its copy's effect claim, not by the item, and a copy of the same request's mark is
 * its own (held-gates.ts `startEndingHeld`, with its three tries); a lease run out is taken off only
 * by the executing gate's caller (`clearStaleEnding`). `holdRequest` (held.ts) writes no mark and
 * only respects a cancel.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { getItem, type Item, itemKey } from './dynamo.js';
import { updateIf } from './dynamo-update.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

/** The held items' one partition (held.ts lists it), and a held request's item in it. */
export const HELD_PK = `${ITEM_FAMILIES.held}#all`;
export const heldItemKey = (requestId: string) => itemKey(HELD_PK, requestId);

export type Mark = 'cancelled' | 'executing' | 'reached' | 'ending' | 'answered' | 'denied';

/**
 * How a mark on the item refuses a write: while it is there (`present`), or, the ending lease
 * for a cancel, only until it runs out (`live`: its attribute is not below the writer's `nowMs`).
 */
type Refusal = 'present' | 'live';

interface MarkSpec {
  /** The attribute that is the mark, and those written and taken off with it. */
  attribute: string;
  with: string[];
  /** The marks that refuse its write, and how. */
  yieldsTo: Partial<Record<Mark, Refusal>>;
  /** Written only on a held question (`why = ask`). */
  question?: boolean;
}

export const MARKS: Readonly<Record<Mark, MarkSpec>> = {
  // A person's cancel (`markCancelled`): not once a copy started to execute the request or an attempt
  // may have reached the platform (nobody can promise nothing changed), nor while a pass records its
  // end: a lease, judged at the cancel's own time, so a writer that died blocks cancels no longer.
  // A click's answer and a Deny do not refuse it: a cancel still wins over them.
  cancelled: {
    attribute: 'cancelledBy',
    with: ['cancelledAt', 'cancelReason'],
    yieldsTo: { cancelled: 'present', executing: 'present', reached: 'present', ending: 'live' },
  },
  // A copy about to call the API (`startExecutingHeld`): not once cancelled, not while an ending
  // lease is on, live or run out (its writer may have written the final and died: the caller reads
  // it, and clears a lease run out), not once a person denied (the request's own copy only: an
  // Approve click's copy ignores it). Another copy's executing mark is no refusal: the effect claim,
  // taken before this gate, keeps two copies of one change apart.
  executing: {
    attribute: 'executingBy',
    with: [],
    yieldsTo: { cancelled: 'present', ending: 'present', denied: 'present' },
  },
  // An attempt may have reached the platform (`markReached`): a fact, written whatever is on the item;
  // nothing but the request's end takes it off.
  reached: { attribute: 'reachedAt', with: [], yieldsTo: {} },
  // A pass about to record the end (`startEndingHeld`): not once cancelled, not while another copy's
  // executing mark is live (how live is judged, and whose mark is its own: held-gates.ts). Another
  // lease is no refusal: the final is written once (put if absent); a second writer finds the first's.
  ending: { attribute: 'endingUntil', with: [], yieldsTo: { cancelled: 'present', executing: 'present' } },
  // An Approve click (`markAnswered`): the first click wins, its own retry passes; a cancel first wins.
  answered: {
    attribute: 'answeredBy',
    with: ['answeredAt'],
    question: true,
    yieldsTo: { cancelled: 'present', answered: 'present' },
  },
  // A person's Deny, once its veto is written (held.ts `lookNow`): not once cancelled or approved by a
  // click, nor once a copy executes it or may have reached the platform (the Deny came too late).
  denied: {
    attribute: 'deniedBy',
    with: ['deniedAt'],
    question: true,
    yieldsTo: { cancelled: 'present', answered: 'present', executing: 'present', reached: 'present' },
  },
};

/** The order in which a refusal is read back: the first of these on the item is the mark that won. */
const PRECEDENCE: readonly Mark[] = ['cancelled', 'executing', 'reached', 'ending', 'answered', 'denied'];

export interface MarkWrite {
  mark: Mark;
  /** The update (`SET …` of the mark's attributes, and any field written with it) and its values. */
  update: string;
  values: Item;
  /** A mark on the item that is the writer's own, by a condition on it (`answeredBy = :by`): no refusal. */
  own?: Partial<Record<Mark, string>>;
  /** Marks of its row this write does not yield to this time (an Approve click's copy and a Deny). */
  ignoring?: readonly Mark[];
  /** The writer's time (epoch ms), which a `live` refusal is judged by. */
  nowMs?: number;
}

/** The condition of a mark's write: the item is there (a held question for some), and no mark it yields to is on it. */
export function markCondition(write: MarkWrite): { expression: string; values: Item } {
  const spec = MARKS[write.mark];
  const parts = ['attribute_exists(pk)'];
  const values: Item = { ...write.values };
  if (spec.question) {
    parts.push('why = :ask');
    values[':ask'] = { S: 'ask' };
  }
  for (const other of PRECEDENCE) {
    const refusal = spec.yieldsTo[other];
    if (!refusal || write.ignoring?.includes(other)) continue;
    const attribute = MARKS[other].attribute;
    const free = [`attribute_not_exists(${attribute})`];
    if (refusal === 'live') {
      if (write.nowMs === undefined) throw new Error(`a ${write.mark} mark is judged at a time: nowMs`);
      free.push(`${attribute} < :now`);
      values[':now'] = { N: String(write.nowMs) };
    }
    const own = write.own?.[other];
    if (own) free.push(own);
    parts.push(free.length > 1 ? `(${free.join(' OR ')})` : free.join(''));
  }
  return { expression: parts.join(' AND '), values };
}

/** Writes the mark unless the item is gone or a mark it yields to is on it; true when written. */
export async function writeMark(table: StateTable, requestId: string, write: MarkWrite): Promise<boolean> {
  const { expression, values } = markCondition(write);
  const out = await updateIf(
    table,
    heldItemKey(requestId),
    { expression: write.update, values },
    { expression },
  );
  return out !== undefined;
}

/**
 * After a refused write of `mark`: the held item as it is now (undefined when gone) and the mark on
 * it that won (the first of those `mark` yields to, by `PRECEDENCE`, read by presence alone), or
 * undefined when none is there any more (taken off between the write and this read).
 */
export async function markThatWon(
  table: StateTable,
  requestId: string,
  mark: Mark,
): Promise<{ item: Item | undefined; won: Mark | undefined }> {
  const item = await getItem(table, heldItemKey(requestId));
  const yieldsTo = MARKS[mark].yieldsTo;
  const won = item ? PRECEDENCE.find((other) => yieldsTo[other] && item[MARKS[other].attribute]) : undefined;
  return { item, won };
}

/** Takes `mark` (and its companions) off, only while it is `mine` and `also` holds: a writer takes back its own mark only. */
export async function takeOffMark(
  table: StateTable,
  requestId: string,
  mark: Mark,
  mine: AttributeValue,
  also?: { expression: string; values: Item },
): Promise<void> {
  const { attribute, with: companions } = MARKS[mark];
  await updateIf(
    table,
    heldItemKey(requestId),
    {
      expression: `REMOVE ${[attribute, ...companions].join(', ')}`,
      values: { ':mine': mine, ...also?.values },
    },
    { expression: `${attribute} = :mine${also ? ` AND ${also.expression}` : ''}` },
  );
}
