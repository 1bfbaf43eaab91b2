/**
 * Copies of requests on their last receive. A copy that dies there (a Lambda timeout, an
 * out-of-memory kill, a crash) runs no catch block: SQS moves it to the DLQ and, without this item,
 * nobody was told (the requester heard "queued" last; a CI gate waited out its timeout). So the
 * worker puts one item per last receive before any work (src/worker/process-record.ts), holding
 * when the attempt is surely over (its deadline: Lambda has killed it by then) and what telling
 * needs; the release tick finds the ones past their deadline and, unless the request ended
 * otherwise, tells the give-up, or the end the copy stored and died before telling
 * (src/worker/dead-attempts.ts).
 *
 * One partition (`lastreceive#all`, sk `<requestId>#<messageId>`), usually empty: an attempt that
 * records an end (a final, a hold) leaves its item for the tick, which finds that end and deletes
 * it; a give-up told on the last receive, or a silent end there (src/worker/give-up.ts), deletes
 * its own. The items go with the table's TTL too.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { itemKey, putItem } from './dynamo.js';
import { deleteIf, deleteItem } from './dynamo-delete.js';
import { queryPages } from './dynamo-query.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

const PK = `${ITEM_FAMILIES.lastReceive}#all`;
/** Kept past its deadline for a week: a tick that fails for days (the ReleaseTickNotRunning alarm) still finds it. */
const KEEP_DAYS = 7;

export interface LastReceiveMark {
  requestId: string;
  messageId: string;
  /** When the attempt is surely over (epoch ms): its invocation's end plus a margin. */
  deadlineMs: number;
  /** When the mark was put (epoch ms, the worker's clock). */
  markedAtMs: number;
  /** The message's SentTimestamp (epoch ms, set by SQS), when it says. */
  sentAtMs?: number;
  /** The receive it was (the queue's maxReceiveCount). */
  receives: number;
  /** The effect's key, whose claim says whether the attempt may have reached the platform. */
  effectKey: string;
  /** The request as the worker read it (JSON): its reply URL, action and target, for the telling. */
  request: string;
  /** That receive's handle: the tick makes the message visible at once, so it reaches the DLQ as told. */
  receiptHandle?: string;
}

const markKey = (requestId: string, messageId: string) => itemKey(PK, `${requestId}#${messageId}`);

/** Puts the mark of a copy on its last receive. */
export async function markLastReceive(table: StateTable, mark: LastReceiveMark): Promise<void> {
  await putItem(table, {
    ...markKey(mark.requestId, mark.messageId),
    requestId: { S: mark.requestId },
    messageId: { S: mark.messageId },
    deadline: { N: String(mark.deadlineMs) },
    markedAt: { N: String(mark.markedAtMs) },
    ...(mark.sentAtMs === undefined ? {} : { sentAt: { N: String(mark.sentAtMs) } }),
    receives: { N: String(mark.receives) },
    effectKey: { S: mark.effectKey },
    request: { S: mark.request },
    ...(mark.receiptHandle ? { receiptHandle: { S: mark.receiptHandle } } : {}),
    expiresAt: { N: String(expiresAfterDays(new Date(mark.deadlineMs), KEEP_DAYS)) },
  });
}

/** Deletes the mark: the copy ended on its last receive, its give-up told or nothing to tell. */
export async function clearLastReceive(
  table: StateTable,
  requestId: string,
  messageId: string,
): Promise<void> {
  await deleteItem(table, markKey(requestId, messageId));
}

/** Claims the mark by deleting it: true for exactly one of the ticks that try. */
export function claimLastReceive(table: StateTable, mark: LastReceiveMark): Promise<boolean> {
  return deleteIf(table, markKey(mark.requestId, mark.messageId), { expression: 'attribute_exists(pk)' });
}

function markFromItem(item: Record<string, AttributeValue>): LastReceiveMark | undefined {
  const num = (name: string) => Number(item[name]?.N);
  const [requestId, messageId, effectKey, request] = [
    item.requestId?.S,
    item.messageId?.S,
    item.effectKey?.S,
    item.request?.S,
  ];
  if (!requestId || !messageId || !effectKey || !request || !Number.isFinite(num('deadline'))) return;
  return {
    requestId,
    messageId,
    deadlineMs: num('deadline'),
    markedAtMs: Number.isFinite(num('markedAt')) ? num('markedAt') : num('deadline'),
    ...(Number.isFinite(num('sentAt')) ? { sentAtMs: num('sentAt') } : {}),
    receives: Number.isFinite(num('receives')) ? num('receives') : 0,
    effectKey,
    request,
    ...(item.receiptHandle?.S ? { receiptHandle: item.receiptHandle.S } : {}),
  };
}

/** Every mark, a page at a time (one Query when the partition is empty, as it usually is). */
export async function* lastReceivePages(table: StateTable): AsyncGenerator<LastReceiveMark[]> {
  for await (const page of queryPages(table, PK)) yield page.flatMap((item) => markFromItem(item) ?? []);
}
