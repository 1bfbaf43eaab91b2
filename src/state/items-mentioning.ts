/**
 * Every item of the state table whose content mentions `text` (a whole-table scan): for the chaos
 * run's trail of one request on the local stack, never for the functions (a scan reads it all).
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { StateTable } from './table.js';

export async function itemsMentioning(table: StateTable, text: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new ScanCommand({ TableName: table.tableName, ExclusiveStartKey: start as never }),
    );
    for (const raw of page.Items ?? []) {
      const item = unmarshall(raw);
      if (JSON.stringify(item).includes(text)) items.push(item);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
