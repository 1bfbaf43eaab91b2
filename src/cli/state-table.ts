/**
 * Which state table a CLI command reads: the running local stack's (`--local`), or a deployed
 * one (`--table NAME`, else STATE_TABLE_NAME; AWS_ENDPOINT_URL_DYNAMODB honoured).
 */
import { createDynamoClient, type StateTable } from '../state/table.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { localEndpoints } from './local-endpoints.js';

export function stateTableFor(io: CliIo, values: Record<string, unknown>, usage: string): StateTable {
  // Both named: using either would act on a table the operator did not mean (usage: --local | --table).
  if (values.local && values.table !== undefined)
    throw new UsageError('--local and --table exclude each other', usage);
  if (values.local) {
    const endpoints = localEndpoints(io, ['dynamodbEndpoint', 'tableName']);
    return {
      client: createDynamoClient({ endpoint: endpoints.dynamodbEndpoint }),
      tableName: endpoints.tableName,
    };
  }
  const tableName = (values.table as string | undefined) ?? io.env.STATE_TABLE_NAME;
  if (!tableName) throw new UsageError('give --table NAME, set STATE_TABLE_NAME, or use --local', usage);
  const endpoint = io.env.AWS_ENDPOINT_URL_DYNAMODB;
  return {
    client: createDynamoClient({
      ...(endpoint ? { endpoint } : {}),
      ...(io.env.AWS_REGION ? { region: io.env.AWS_REGION } : {}),
    }),
    tableName,
  };
}
