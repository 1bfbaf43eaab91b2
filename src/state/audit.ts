/**
 * The audit trail: one record per decision or outcome, kept 90 days (DynamoDB TTL), addressed
 * by request id so that everything that happened to one request reads back with one query.
 * Its partition also holds "already told people" markers (written by src/state/telling.ts), so a
 * request held again and again (a window, a limit, an unanswered question) is posted to Slack once.
 */

import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DecisionInputs } from '../policy/replay.js';
import { scrubSecrets } from '../util/secret-scrub.js';
import { getItem, putIfAbsent, putItem } from './dynamo.js';
import { batchGet } from './dynamo-batch.js';
import { queryPartition } from './dynamo-query.js';
import type { LeaseAttributes } from './lease.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

export const AUDIT_KEEP_DAYS = 90;

export interface AuditRecord {
  requestId: string;
  at: Date;
  action: string;
  target: string;
  effectKey: string;
  requester: string;
  rule: string;
  reason: string;
  /** approved, denied, deferred, asked, stale, rejected, replayed, dead-lettered, ... */
  result: string;
  dryRun: boolean;
  messageId?: string;
  deferUntil?: string;
  /** For a replay: the request whose stored outcome was told again. */
  replayOf?: string;
  /** Set on the record of a policy decision (not on later outcomes or replays of stored ones). */
  inputs?: DecisionInputs;
  /**
   * With `inputs`: the short digest of the policy that decided (src/policy/digest.ts, as
   * `policy check` prints it). Absent on records written before it was kept: unknown.
   */
  policyDigest?: string;
  /** On the record ending an asked request a person answered: who (`slack:U…`). Not a policy decision. */
  answeredBy?: string;
  /** On the record the release tick writes ending a stuck wait at its expiry: housekeeping, not a policy decision. */
  stuckExpired?: boolean;
  /** On an ending (a give-up's dead-lettering): as `FinalOutcome.mayHaveBeenDone`. Absent on records of older versions. */
  mayHaveBeenDone?: boolean;
  /**
   * On a give-up's dead-lettering: the messages of other copies whose give-ups deferred to the copy
   * that wrote it (src/state/live-copies.ts `gaveUp`). It ends them too: their CI gates read it.
   */
  endsMessages?: string[];
}

/** The partition of one request's audit records, final and markers. */
export function auditPk(requestId: string) {
  return { S: `${ITEM_FAMILIES.audit}#${requestId}` };
}

/** Writes one audit record; its sort key, for a writer that points at it (src/state/given-up-end.ts). */
export async function writeAudit(table: StateTable, record: AuditRecord): Promise<string> {
  // Time first so a query reads a request's history in order; the result keeps it unique.
  const sk = `record#${record.at.toISOString()}#${record.result}#${randomUUID().slice(0, 8)}`;
  const item: Record<string, AttributeValue> = {
    pk: auditPk(record.requestId),
    sk: { S: sk },
    requestId: { S: record.requestId },
    at: { S: record.at.toISOString() },
    action: { S: record.action },
    target: { S: record.target },
    effectKey: { S: record.effectKey },
    requester: { S: record.requester },
    rule: { S: scrubSecrets(record.rule) },
    reason: { S: scrubSecrets(record.reason) },
    result: { S: record.result },
    dryRun: { BOOL: record.dryRun },
    expiresAt: { N: String(expiresAfterDays(record.at, AUDIT_KEEP_DAYS)) },
  };
  if (record.messageId) item.messageId = { S: record.messageId };
  if (record.deferUntil) item.deferUntil = { S: record.deferUntil };
  if (record.replayOf) item.replayOf = { S: record.replayOf };
  if (record.answeredBy) item.answeredBy = { S: record.answeredBy };
  if (record.stuckExpired) item.stuckExpired = { BOOL: true };
  if (record.mayHaveBeenDone !== undefined) item.mayHaveBeenDone = { BOOL: record.mayHaveBeenDone };
  if (record.policyDigest) item.policyDigest = { S: record.policyDigest };
  if (record.endsMessages?.length) item.endsMessages = { SS: record.endsMessages };
  if (record.inputs) item.inputs = { S: scrubSecrets(JSON.stringify(record.inputs)) };
  await putItem(table, item);
  return sk;
}

export type StoredAuditRecord = Omit<AuditRecord, 'at'> & { at: string };

/** An audit item as a record; `inputs` only when it parses (records written before it existed have none). */
export function storedRecord(item: Record<string, AttributeValue>, requestId = ''): StoredAuditRecord {
  const record: StoredAuditRecord = {
    requestId: item.requestId?.S ?? requestId,
    at: item.at?.S ?? '',
    action: item.action?.S ?? '',
    target: item.target?.S ?? '',
    effectKey: item.effectKey?.S ?? '',
    requester: item.requester?.S ?? '',
    rule: item.rule?.S ?? '',
    reason: item.reason?.S ?? '',
    result: item.result?.S ?? '',
    dryRun: item.dryRun?.BOOL ?? false,
  };
  if (item.messageId?.S) record.messageId = item.messageId.S;
  if (item.deferUntil?.S) record.deferUntil = item.deferUntil.S;
  if (item.replayOf?.S) record.replayOf = item.replayOf.S;
  if (item.answeredBy?.S) record.answeredBy = item.answeredBy.S;
  if (item.stuckExpired?.BOOL) record.stuckExpired = true;
  if (typeof item.mayHaveBeenDone?.BOOL === 'boolean') record.mayHaveBeenDone = item.mayHaveBeenDone.BOOL;
  if (item.policyDigest?.S) record.policyDigest = item.policyDigest.S;
  if (item.endsMessages?.SS?.length) record.endsMessages = item.endsMessages.SS;
  if (item.inputs?.S) {
    try {
      record.inputs = JSON.parse(item.inputs.S) as DecisionInputs;
    } catch {
      // unreadable inputs: the record is simply not replayable
    }
  }
  return record;
}

/**
 * A request's audit history, oldest first, every page of it. No cap: one cut at 20 pages (oldest
 * first) silently lost the newest steps, the end among them (`why` showed an ended request still
 * waiting; `endingRecorded` missed the mark and the end could be told twice). One request's
 * records are bounded in practice (its holds end within `maxDeferHours`, and the platform's words
 * in a reason are bounded by the client), so reading them all is what it costs to be right.
 */
export async function readAudit(table: StateTable, requestId: string): Promise<StoredAuditRecord[]> {
  const items = await queryPartition(table, auditPk(requestId).S, { skPrefix: 'record#' });
  return items.map((item) => storedRecord(item, requestId));
}

/**
 * Whether the trail has the record of `result` ending the request (or of its end told again): the
 * mark that its end was told. A final without one was never told (the put failed after the final,
 * or the invocation ended between the two).
 */
export async function endingRecorded(table: StateTable, requestId: string, result: string): Promise<boolean> {
  const records = await readAudit(table, requestId);
  return records.some((r) => (r.result === result && !r.replayOf) || r.result === 'replayed');
}

/** The final outcome of a request, as first recorded (see `recordFinal`). */
export interface FinalOutcome {
  result: string;
  reason: string;
  rule: string;
  requestId: string;
  at: string;
  /** Whose request ended under the id (finals written before owners were kept have none). */
  owner?: RequestOwner;
  /** A person's answer ended it (src/worker/answered.ts): who. Whoever tells the end records it so. */
  answeredBy?: string;
  /** The release tick ended a stuck wait at its expiry (src/worker/stuck.ts). Told so by whoever tells it. */
  stuckExpired?: boolean;
  /**
   * An end that is no plain refusal: an attempt whose answer was lost may have made the change (a
   * refusal or a stale phase after it, a denial of a request such an attempt was made for). Set by
   * the writer that knows it, true or false; what people read follows it (the ⚠ headline, the CI
   * gate's exit 5), never the reason's words. Absent on finals written before it was stored.
   */
  mayHaveBeenDone?: boolean;
}

/** Who asked for what under a request id: a copy of the request has the same. */
export interface RequestOwner {
  /** `source:id`. */
  requester: string;
  effectKey: string;
  /**
   * The key the change had before its id took a digest form (src/actions/former-effect-key.ts), when
   * it differs; never stored. A final written before that deploy is still this request's own.
   */
  formerEffectKey?: string;
}

/** Whether two owners are one request's (its copies have the same; one may be stored under the former key). */
export function sameOwner(a: RequestOwner, b: RequestOwner): boolean {
  if (a.requester !== b.requester) return false;
  return (
    a.effectKey === b.effectKey || a.formerEffectKey === b.effectKey || a.effectKey === b.formerEffectKey
  );
}

/**
 * The telling of a request's end claimed together with its final (`recordFinal`): who tells it,
 * and until when (epoch ms) the claim holds (src/state/telling.ts).
 */
export interface TellingClaim {
  owner: string;
  untilMs: number;
}

/** Where the final item keeps the telling claimed with it (src/state/lease.ts). */
export const FINAL_TELLING: LeaseAttributes = { owner: 'tellOwner', until: 'tellUntil' };

/**
 * Records how a request ended (approved, denied, stale, ...), the first time only: copies of the
 * same request (SQS redeliveries, producer retries) replay it instead of deciding or calling
 * again. Deferrals and questions are not final. Returns false when a final was already there.
 *
 * With `telling`, the writer claims the telling of this end in the same put (no round trip of
 * its own): written first, the final holds the claim until `telling.untilMs`, and a copy finding
 * the end untold meanwhile stays silent (src/state/telling.ts `finalTellingHeld`; given back with
 * `releaseFinalTelling`).
 */
export function recordFinal(
  table: StateTable,
  final: FinalOutcome,
  now: Date,
  owner: RequestOwner | undefined,
  telling?: TellingClaim,
): Promise<boolean> {
  return putIfAbsent(table, finalItem(final, now, owner, telling));
}

export function finalItem(
  final: FinalOutcome,
  now: Date,
  owner: RequestOwner | undefined,
  telling?: TellingClaim,
): Record<string, AttributeValue> {
  const { owner: _stored, ...outcome } = final;
  return {
    ...finalItemKey(final.requestId),
    outcome: { S: JSON.stringify(outcome) },
    ...(owner ? { requester: { S: owner.requester }, effectKey: { S: owner.effectKey } } : {}),
    ...(telling
      ? { [FINAL_TELLING.owner]: { S: telling.owner }, [FINAL_TELLING.until]: { N: String(telling.untilMs) } }
      : {}),
    expiresAt: { N: String(expiresAfterDays(now, AUDIT_KEEP_DAYS)) },
  };
}

/** The final-outcome item's key, for readers that batch it with other items. */
export function finalItemKey(requestId: string) {
  return { pk: auditPk(requestId), sk: { S: 'final' } };
}

export async function readFinal(table: StateTable, requestId: string): Promise<FinalOutcome | undefined> {
  return finalFromItem(await getItem(table, finalItemKey(requestId)));
}

/**
 * How each of `requestIds` ended (absent: not ended, or its record expired), in batches: the
 * sweeper reads its earlier archives' outcomes so that a denied one can be asked again.
 */
export async function readFinals(
  table: StateTable,
  requestIds: string[],
): Promise<Map<string, FinalOutcome>> {
  const finals = new Map<string, FinalOutcome>();
  for (const item of await batchGet(table, requestIds.map(finalItemKey))) {
    const final = finalFromItem(item);
    const requestId = item.pk?.S?.slice(auditPk('').S.length);
    if (final && requestId) finals.set(requestId, final);
  }
  return finals;
}

export function finalFromItem(Item: Record<string, AttributeValue> | undefined): FinalOutcome | undefined {
  if (!Item?.outcome?.S) return undefined;
  const final = JSON.parse(Item.outcome.S) as FinalOutcome;
  const requester = Item.requester?.S;
  const effectKey = Item.effectKey?.S;
  return requester && effectKey ? { ...final, owner: { requester, effectKey } } : final;
}

/** A request's records and its ending (if it has ended), read together (`why`, `audit`). */
export async function readRequestAudit(
  table: StateTable,
  requestId: string,
): Promise<{ records: StoredAuditRecord[]; final?: FinalOutcome | undefined }> {
  const [records, final] = await Promise.all([readAudit(table, requestId), readFinal(table, requestId)]);
  return { records, final };
}
