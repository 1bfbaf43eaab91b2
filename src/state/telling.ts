/**
 * Who tells a request's end: a claim, so that two copies of one request (a redelivery meeting a
 * retry, or meeting the writer of the end) never both post it. The writer of an end claims with
 * its final (src/state/audit.ts `recordFinal`); a copy finding an end untold claims with its own
 * item once no claim with the final holds.
 */
import {
  AUDIT_KEEP_DAYS,
  auditPk,
  type FinalOutcome,
  finalItem,
  finalItemKey,
  type RequestOwner,
  type TellingClaim,
} from './audit.js';
import { getItem, putIf } from './dynamo.js';
import { deleteIf } from './dynamo-delete.js';
import { expiresAfterDays, type StateTable } from './table.js';

/**
 * Gives back the telling claimed with a final (its telling failed before its audit record: a
 * retry, or a copy, tells): the same final written again without the claim, only while `telling`
 * still holds it. `final`, `now` and `owner` are those `recordFinal` wrote.
 */
export async function releaseFinalTelling(
  table: StateTable,
  final: FinalOutcome,
  now: Date,
  owner: RequestOwner | undefined,
  telling: TellingClaim,
): Promise<void> {
  await putIf(table, finalItem(final, now, owner), {
    expression: '#tellOwner = :owner',
    names: { '#tellOwner': 'tellOwner' },
    values: { ':owner': { S: telling.owner } },
  });
}

/**
 * Whether the telling claimed with the request's final (`recordFinal`) still holds at `nowMs`
 * (consistent read): its writer tells the end, or gives the claim back first. A claim with the
 * final is only ever written with it, so once seen expired or given back it never holds again.
 */
export async function finalTellingHeld(
  table: StateTable,
  requestId: string,
  nowMs: number,
): Promise<boolean> {
  const item = await getItem(table, finalItemKey(requestId));
  const until = item?.tellUntil?.N;
  return until !== undefined && Number(until) >= nowMs;
}

/**
 * Claims the telling of a request's stored end: the writer of the end claims it before its audit
 * record and posts (with the final itself when its put writes it: `recordFinal`, else here), and
 * so does a copy finding the end untold (no audit record of it yet) once no claim with the final
 * holds (`finalTellingHeld`): two copies at once (a redelivery meeting a retry, or meeting the
 * writer) must not both post it. The first conditional put wins. The claim lasts until `untilMs` (past the claimer's
 * invocation), so a copy that crashed while telling holds it no longer: a later copy takes it
 * over and tells. True when this copy holds it.
 */
export function claimTelling(
  table: StateTable,
  requestId: string,
  owner: string,
  nowMs: number,
  untilMs: number,
): Promise<boolean> {
  return putIf(
    table,
    {
      pk: auditPk(requestId),
      sk: { S: TELLING_SK },
      owner: { S: owner },
      until: { N: String(untilMs) },
      expiresAt: { N: String(expiresAfterDays(new Date(nowMs), AUDIT_KEEP_DAYS)) },
    },
    {
      expression: 'attribute_not_exists(pk) OR #until < :now',
      names: { '#until': 'until' },
      values: { ':now': { N: String(nowMs) } },
    },
  );
}

/** Gives a telling claim back (the telling failed before its audit record was written: a retry tells). */
export async function releaseTelling(table: StateTable, requestId: string, owner: string): Promise<void> {
  await deleteIf(
    table,
    { pk: auditPk(requestId), sk: { S: TELLING_SK } },
    { expression: '#owner = :owner', names: { '#owner': 'owner' }, values: { ':owner': { S: owner } } },
  );
}

const TELLING_SK = 'notified#end';
