/** A Query that follows every page of one partition (see dynamo.ts for why this is a module of its own). */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Item } from './dynamo.js';
import type { StateTable } from './table.js';

interface QueryOptions {
  skPrefix?: string;
  maxPages?: number;
  /**
   * Only these attributes of each item (a ProjectionExpression): a caller that needs a few small
   * fields of a large partition (the release tick's listing of held requests, src/state/held-list.ts)
   * keeps kilobytes per page in memory, not the megabyte of items DynamoDB read for it.
   */
  attributes?: readonly string[];
  /**
   * Start after the item whose `sk` is this (it need not exist any more): a person's next page
   * (`/autopilot held after <id>`, src/state/held-list.ts) picks up where the last one ended.
   */
  after?: string;
  /** At most this many items per Query (its `Limit`): a caller that needs only a few reads only a few. */
  limit?: number;
}

/**
 * Every item of partition `pk` (optionally only those whose `sk` starts with `skPrefix`),
 * following every page, in `sk` order. `maxPages` bounds a partition that should be small.
 */
export async function queryPartition(
  table: StateTable,
  pk: string,
  options: QueryOptions = {},
): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(table, pk, options)) items.push(...page);
  return items;
}

/**
 * The same, one page at a time: a caller that keeps only some of a large partition (the
 * last-seen index, src/state/last-seen.ts) never holds all of it at once.
 */
export async function* queryPages(
  table: StateTable,
  pk: string,
  options: QueryOptions = {},
): AsyncGenerator<Item[]> {
  const maxPages = options.maxPages ?? 10_000;
  let start: Item | undefined =
    options.after === undefined ? undefined : { pk: { S: pk }, sk: { S: options.after } };
  for (let page = 0; page < maxPages; page++) {
    const out = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression:
          options.skPrefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': { S: pk },
          ...(options.skPrefix === undefined ? {} : { ':prefix': { S: options.skPrefix } }),
        },
        ...projection(options.attributes),
        ConsistentRead: true,
        ...(options.limit === undefined ? {} : { Limit: options.limit }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    yield out.Items ?? [];
    start = out.LastEvaluatedKey;
    if (!start) return;
  }
  if (options.maxPages !== undefined) return;
  throw new Error(`query of ${pk} did not end`);
}

/** Names rather than the attributes themselves: a projected attribute may be a reserved word. */
function projection(attributes: readonly string[] | undefined) {
  if (attributes === undefined) return {};
  return {
    ProjectionExpression: attributes.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#p${i}`, name])),
  };
}
