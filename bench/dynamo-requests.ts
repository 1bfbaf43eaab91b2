/**
 * Counting the requests a DynamoDB client sends, by operation (the SDK's own command name, e.g.
 * `PutItemCommand`), with a middleware on its stack: one mechanism for every section that reports
 * what a run costs in DynamoDB requests (bench/sweeper.bench.ts, bench/worker.bench.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** From now on, each request `client` sends adds one to its operation in `counts`. */
export function countRequests(
  client: Pick<DynamoDBClient, 'middlewareStack'>,
  counts: Map<string, number>,
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = context.commandName ?? '?';
      counts.set(operation, (counts.get(operation) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
}
