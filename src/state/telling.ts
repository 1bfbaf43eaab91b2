/**
 * Who tells a request's end: a claim, so that two copies of one request (a redelivery meeting a
 * retry, or meeting the writer of the end) never both post it. The writer of an end claims with
 * its final (src/state/audit.ts `recordFinal`); a copy finding an end untold claims with its own
 * item once no claim with the final holds. Each claim here is a lease (src/state/lease.ts).
 */
import {
  AUDIT_KEEP_DAYS,
  auditPk,
  FINAL_TELLING,
  type FinalOutcome,
  finalItem,
  finalItemKey,
  type RequestOwner,
  type TellingClaim,
} from './audit.js';
import { getItem, putIf, putItem } from './dynamo.js';
import { giveBackLease, ifMine, LEASE, liveHolder, readLease, takeLease } from './lease.js';
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
  await putIf(table, finalItem(final, now, owner), ifMine(FINAL_TELLING, telling.owner));
}

/**
 * Until when (epoch ms) the telling claimed with the request's final (`recordFinal`) holds, if it
 * still holds at `nowMs` (consistent read): its writer tells the end, or gives the claim back
 * first. A claim with the final is only ever written with it, so once seen expired or given back it
 * never holds again.
 */
export async function finalTellingUntil(
  table: StateTable,
  requestId: string,
  nowMs: number,
): Promise<number | undefined> {
  return liveHolder(await getItem(table, finalItemKey(requestId)), FINAL_TELLING, nowMs)?.untilMs;
}

/** Whether the telling claimed with the request's final still holds at `nowMs` (`finalTellingUntil`). */
export async function finalTellingHeld(
  table: StateTable,
  requestId: string,
  nowMs: number,
): Promise<boolean> {
  return (await finalTellingUntil(table, requestId, nowMs)) !== undefined;
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
export async function claimTelling(
  table: StateTable,
  requestId: string,
  owner: string,
  nowMs: number,
  untilMs: number,
): Promise<boolean> {
  const item = {
    ...tellingKey(requestId),
    expiresAt: { N: String(expiresAfterDays(new Date(nowMs), AUDIT_KEEP_DAYS)) },
  };
  return (await takeLease(table, LEASE, { item, owner, untilMs, nowMs })).taken;
}

/**
 * Until when (epoch ms) another copy's telling claim (`claimTelling`) holds: read when a claim was
 * refused. Undefined when none is there any more (given back since: a copy may claim again).
 */
export async function tellingClaimUntil(table: StateTable, requestId: string): Promise<number | undefined> {
  return (await readLease(table, tellingKey(requestId), LEASE))?.untilMs;
}

/** Gives a telling claim back (the telling failed before its audit record was written: a retry tells). */
export function releaseTelling(table: StateTable, requestId: string, owner: string): Promise<void> {
  return giveBackLease(table, tellingKey(requestId), LEASE, owner);
}

const tellingKey = (requestId: string) => ({ pk: auditPk(requestId), sk: { S: 'notified#end' } });

/**
 * Says a request's end was told though its audit record (the mark that it was told) could not be
 * written after the posts: the copy that tells it next (src/worker/finish.ts `tellUntold`) writes
 * the record without posting again. Written on that failure only, never on the common path.
 */
export async function markToldUnrecorded(table: StateTable, requestId: string, now: Date): Promise<void> {
  await putItem(table, {
    pk: auditPk(requestId),
    sk: { S: TOLD_UNRECORDED_SK },
    at: { S: now.toISOString() },
    expiresAt: { N: String(expiresAfterDays(now, AUDIT_KEEP_DAYS)) },
  });
}

/**
 * Writes the audit record of an end whose posts were made (`write`): failing, the end is marked
 * told apart (`markToldUnrecorded`), so that whoever tells it next records it without posting
 * again; a mark that fails too goes to `unmarked` (it is told again: twice rather than never).
 * The error thrown is the record's own.
 */
export async function recordTold(
  table: StateTable,
  requestId: string,
  now: Date,
  write: () => Promise<void>,
  unmarked: (error: unknown) => void,
): Promise<void> {
  try {
    await write();
  } catch (error) {
    await markToldUnrecorded(table, requestId, now).catch(unmarked);
    throw error;
  }
}

/** Whether the request's end was told and only its audit record is missing (`markToldUnrecorded`). */
export async function toldUnrecorded(table: StateTable, requestId: string): Promise<boolean> {
  return (await getItem(table, { pk: auditPk(requestId), sk: { S: TOLD_UNRECORDED_SK } })) !== undefined;
}

const TOLD_UNRECORDED_SK = 'notified#end-told';

/**
 * Claims telling `topic` (a deferral by one rule, a question) for this request, once: before the posts, and
 * only until `untilMs` (past the claimer's invocation) until `noticeTold` marks it told after
 * them. A process that died in between holds it no longer once the lease ran out, and the next
 * look at the request tells it (twice rather than never). A mark without a lease (`noticeTold`'s, or
 * one earlier versions wrote before the posts) counts as told. True when this copy holds it.
 */
export async function claimNotice(
  table: StateTable,
  requestId: string,
  topic: string,
  claim: { owner: string; nowMs: number; untilMs: number },
): Promise<boolean> {
  const item = {
    ...noticeKey(requestId, topic),
    at: { S: new Date(claim.nowMs).toISOString() },
    expiresAt: { N: String(expiresAfterDays(new Date(claim.nowMs), AUDIT_KEEP_DAYS)) },
  };
  return (await takeLease(table, LEASE, { item, ...claim })).taken;
}

const noticeKey = (requestId: string, topic: string) => ({
  pk: auditPk(requestId),
  sk: { S: `notified#${topic}` },
});

/**
 * Gives back a claim on telling `topic` (`claimNotice`) whose posts failed, so that a retry tells
 * it; only while `owner` still holds it: once its lease ran out, the claim there (or the mark that
 * it was told) is another copy's, and stays.
 */
export function releaseNotice(
  table: StateTable,
  requestId: string,
  topic: string,
  owner: string,
): Promise<void> {
  return giveBackLease(table, noticeKey(requestId, topic), LEASE, owner);
}

/** Marks `topic` told for good after its posts (`claimNotice`), while `owner` still holds it. */
export async function noticeTold(
  table: StateTable,
  requestId: string,
  topic: string,
  owner: string,
  now: Date,
): Promise<void> {
  const told = {
    ...noticeKey(requestId, topic),
    at: { S: now.toISOString() },
    expiresAt: { N: String(expiresAfterDays(now, AUDIT_KEEP_DAYS)) },
  };
  await putIf(table, told, ifMine(LEASE, owner));
}
