/**
 * The state table's per-operation metrics for the dashboard. DynamoDB publishes
 * `ThrottledRequests` and `SystemErrors` only with the dimensions TableName and Operation, and
 * CloudWatch matches the exact dimension set: a series asked for by TableName alone never has
 * data (aws-cdk-lib's `metricThrottledRequests()` is deprecated as "an invalid metric" for this).
 * So one series per operation the functions use (read from their grants, so a new operation is
 * graphed with its grant), added up with FILL: usually one operation throttles, and a plain
 * `a + b` has no value where one of them has no data point.
 */
import type { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import {
  SWEEPER_TABLE_GRANTS,
  type TableGrant,
  WEBHOOK_TABLE_GRANTS,
  WORKER_TABLE_GRANTS,
} from './table-grants.js';

/** The DynamoDB operations the functions may call (`dynamodb:GetItem` → `GetItem`), sorted. */
export function tableOperations(
  grants: readonly TableGrant[] = [...WEBHOOK_TABLE_GRANTS, ...WORKER_TABLE_GRANTS, ...SWEEPER_TABLE_GRANTS],
): string[] {
  const operations = grants
    .flatMap((grant) => grant.actions)
    .map((action) => action.replace(/^dynamodb:/, ''));
  return [...new Set(operations)].sort();
}

/** The sum over the functions' operations of a per-operation table metric (e.g. ThrottledRequests). */
export function sumOverOperations(
  table: Pick<ITable, 'tableName'>,
  metricName: 'ThrottledRequests' | 'SystemErrors',
  options: { label: string; period: Duration },
): MathExpression {
  const prefix = metricName === 'ThrottledRequests' ? 'throttled' : 'systemErrors';
  const usingMetrics = Object.fromEntries(
    tableOperations().map((operation) => [
      `${prefix}_${operation}`,
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: table.tableName, Operation: operation },
        statistic: 'Sum',
        period: options.period,
      }),
    ]),
  );
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    label: options.label,
    period: options.period,
  });
}
