/**
 * When a request was given up, and which `dead-lettered` record says so. A give-up writes no final
 * (a later message under the id, a CI retry or an operator's `autopilot dlq redrive`, is a new
 * attempt and is decided afresh), so without this item a copy of the request itself (a producer's
 * retried SendMessage) first received after the give-up was decided afresh too, and told a second,
 * different end ("Done" after "Gave up …"). The worker tells the two apart by the message's
 * `SentTimestamp`, set by SQS (src/worker/ended-copy.ts): a message of the same owner sent before
 * the give-up was recorded is a copy of the request that ended.
 *
 * One item in the request's audit partition (sk `given-up`), read with the request's state in its
 * one batch (src/state/request-state.ts): no round trip of its own. Put once per told give-up (a
 * later give-up under the id replaces it), kept as long as the audit records.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { AUDIT_KEEP_DAYS, auditPk, type RequestOwner } from './audit.js';
import { putItem } from './dynamo.js';
import { updateIf } from './dynamo-update.js';
import { expiresAfterDays, type StateTable } from './table.js';

export interface GivenUpEnd {
  /** When the give-up was recorded (epoch ms, the worker's clock: its record's `at`). */
  atMs: number;
  /** The sort key of its `dead-lettered` audit record. */
  record: string;
  /** Whose request it was: a message under the id from another requester, or for another change, is no copy of it. */
  owner: Pick<RequestOwner, 'requester' | 'effectKey'>;
}

export function givenUpEndKey(requestId: string) {
  return { pk: auditPk(requestId), sk: { S: 'given-up' } };
}

/** Records that `requestId` was given up at `atMs`, as its `dead-lettered` record `record` says. */
export async function markGivenUpEnd(table: StateTable, requestId: string, end: GivenUpEnd): Promise<void> {
  await putItem(table, {
    ...givenUpEndKey(requestId),
    at: { N: String(end.atMs) },
    record: { S: end.record },
    requester: { S: end.owner.requester },
    effectKey: { S: end.owner.effectKey },
    expiresAt: { N: String(expiresAfterDays(new Date(end.atMs), AUDIT_KEEP_DAYS)) },
  });
}

export function givenUpEndFromItem(item: Record<string, AttributeValue> | undefined): GivenUpEnd | undefined {
  const atMs = Number(item?.at?.N);
  const [record, requester, effectKey] = [item?.record?.S, item?.requester?.S, item?.effectKey?.S];
  if (!record || !requester || !effectKey || !Number.isFinite(atMs)) return undefined;
  return { atMs, record, owner: { requester, effectKey } };
}

/**
 * Names message `messageId` on the give-up's `dead-lettered` record (`endsMessages`): a copy of the
 * request that ended with it, so a CI gate waiting on that message ends with the give-up (3 or 5:
 * src/cli/wait.ts). False when the record is gone (expired with the trail).
 */
export async function endsMessageToo(
  table: StateTable,
  requestId: string,
  end: GivenUpEnd,
  messageId: string,
): Promise<boolean> {
  const updated = await updateIf(
    table,
    { pk: auditPk(requestId), sk: { S: end.record } },
    { expression: 'ADD endsMessages :me', values: { ':me': { SS: [messageId] } } },
    { expression: 'attribute_exists(pk)' },
  );
  return updated !== undefined;
}
