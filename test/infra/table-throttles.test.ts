/**
 * The dashboard's "State table: throttled requests" widget. DynamoDB publishes
 * `ThrottledRequests` and `SystemErrors` only with the dimensions TableName *and* Operation
 * (aws-cdk-lib marks `metricThrottledRequests()` "returns an invalid metric" for that reason).
 * CloudWatch matches the exact dimension set, so a series asked for with TableName alone has no
 * data, ever: an operator looking for table throttles sees an empty graph while the functions are
 * being throttled. Each series must name an operation the functions use, and their sum must count
 * an operation with no data in a period as 0 (a plain `a + b` drops the timestamps where one of
 * them is missing, and usually only one operation throttles).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEPER_TABLE_GRANTS, WEBHOOK_TABLE_GRANTS, WORKER_TABLE_GRANTS } from '../../infra/table-grants.js';
import { type Synthesized, synthesize } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(() => s?.cleanup());

type Row = unknown[];
interface Widget {
  properties: { title?: string; metrics?: Row[] };
}

/** The dashboard body as JSON, each CloudFormation reference replaced by a `REF:<id>` string. */
function dashboard(): { widgets: Widget[] } {
  const [resource] = Object.values(s.template.findResources('AWS::CloudWatch::Dashboard'));
  const body = (resource as { Properties: { DashboardBody: unknown } }).Properties.DashboardBody;
  const flatten = (node: unknown): string => {
    if (typeof node === 'string') return node;
    if (node && typeof node === 'object' && 'Fn::Join' in node) {
      const [, parts] = (node as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      return parts.map(flatten).join('');
    }
    if (node && typeof node === 'object' && 'Ref' in node) return `REF:${(node as { Ref: string }).Ref}`;
    if (node && typeof node === 'object' && 'Fn::GetAtt' in node)
      return `REF:${(node as { 'Fn::GetAtt': string[] })['Fn::GetAtt'].join('.')}`;
    return JSON.stringify(node);
  };
  return JSON.parse(flatten(body));
}

/** A metric row `[namespace, name, dim1, value1, …, options?]` as its parts. */
function metricOf(row: Row) {
  const cells = row.filter((cell) => typeof cell === 'string') as string[];
  const options = (row.find((cell) => cell && typeof cell === 'object') ?? {}) as { id?: string };
  const [namespace, name, ...pairs] = cells;
  const dimensions: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) dimensions[pairs[i] as string] = pairs[i + 1] as string;
  return { namespace, name, dimensions, id: options.id };
}

const usedOperations = [...WEBHOOK_TABLE_GRANTS, ...WORKER_TABLE_GRANTS, ...SWEEPER_TABLE_GRANTS]
  .flatMap((grant) => grant.actions)
  .map((action) => action.replace(/^dynamodb:/, ''));

describe('the state table widget', () => {
  const tableWidget = () => {
    const widget = dashboard().widgets.find((w) => w.properties.title?.startsWith('State table'));
    if (!widget) throw new Error('no state table widget');
    return widget.properties.metrics ?? [];
  };

  it.each(['ThrottledRequests', 'SystemErrors'])(
    'reads %s per operation (TableName and Operation), for every operation the functions use',
    (name) => {
      const series = tableWidget()
        .filter((row) => row.some((cell) => typeof cell === 'string'))
        .map(metricOf)
        .filter((m) => m.namespace === 'AWS/DynamoDB' && m.name === name);
      expect(series.length, `${name} is on the widget`).toBeGreaterThan(0);
      for (const m of series)
        expect(Object.keys(m.dimensions).sort(), name).toEqual(['Operation', 'TableName']);
      const operations = new Set(series.map((m) => m.dimensions.Operation));
      for (const operation of new Set(usedOperations))
        expect(operations, `${name} ${operation}`).toContain(operation);
    },
  );

  it('adds the operations up with a missing series as 0', () => {
    const rows = tableWidget();
    const ids = (name: string) =>
      rows
        .filter((row) => row.some((cell) => typeof cell === 'string'))
        .map(metricOf)
        .filter((m) => m.namespace === 'AWS/DynamoDB' && m.name === name)
        .map((m) => m.id as string);
    const expressions = rows
      .map((row) =>
        row[0] && typeof row[0] === 'object' ? (row[0] as { expression?: string }).expression : undefined,
      )
      .filter((e): e is string => typeof e === 'string');
    for (const name of ['ThrottledRequests', 'SystemErrors']) {
      const own = ids(name);
      const sum = expressions.find((e) => own.every((id) => e.includes(id)));
      expect(sum, `an expression adds up ${name}`).toBeDefined();
      for (const id of own) expect(sum).toContain(`FILL(${id}, 0)`);
    }
  });
});
