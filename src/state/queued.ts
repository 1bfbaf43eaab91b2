/**
 * Which Slack requests the webhook has put on the queue. Slack retries a slash command whose
 * answer was late (`X-Slack-Retry-Num`); the retry carries the same request id. A mark written
 * after a successful send lets the retry tell "already queued" (answer, queue nothing) from
 * "the first delivery never reached the queue" (queue it now, with the same id).
 */
import { getItem, putItem } from './dynamo.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

const key = (requestId: string) => ({ pk: { S: `${ITEM_FAMILIES.queued}#${requestId}` }, sk: { S: 'sent' } });

/** Slack retries within minutes; a day is plenty. */
const KEEP_DAYS = 1;

export async function markQueued(
  table: StateTable,
  requestId: string,
  messageId: string,
  at: Date,
): Promise<void> {
  await putItem(table, {
    ...key(requestId),
    messageId: { S: messageId },
    at: { S: at.toISOString() },
    expiresAt: { N: String(expiresAfterDays(at, KEEP_DAYS)) },
  });
}

/** The SQS message id the request was queued as, or undefined when it never was. */
export async function queuedAs(table: StateTable, requestId: string): Promise<string | undefined> {
  return (await getItem(table, key(requestId)))?.messageId?.S;
}
