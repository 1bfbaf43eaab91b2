/**
 * Reading the audit trail by time, for `autopilot policy replay` (an operator's tool): kept apart
 * from audit.ts so that no function bundle carries a Scan it is not allowed to make.
 */
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { type StoredAuditRecord, storedRecord } from './audit.js';
import type { StateTable } from './table.js';
/**
 * Every audit record written at or after `since`, oldest first: a paged Scan, read-only, for
 * `autopilot policy replay` (the audit trail is addressed by request id, not by time).
 */
export async function scanAuditSince(table: StateTable, since: Date): Promise<StoredAuditRecord[]> {
  const out: StoredAuditRecord[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const res = await table.client.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'begins_with(sk, :prefix) AND #at >= :since',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':prefix': { S: 'record#' }, ':since': { S: since.toISOString() } },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of res.Items ?? []) out.push(storedRecord(item));
    start = res.LastEvaluatedKey;
  } while (start);
  return out.sort((a, b) => a.at.localeCompare(b.at));
}
