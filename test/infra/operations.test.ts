/**
 * Issue 15 items 2, 3, 4, 8 and 10: the dashboard, the saved queries and the alarms in the
 * template, alarm thresholds from context, and context values refused with one line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_CATALOGUE } from '../../src/observability/metrics.js';
import { type Synthesized, synthesize } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize(
    {
      sweepSchedule: '10',
      alarmThrottledPer5Min: '25',
      alarmUnreachablePer5Min: '7',
      alarmServerErrorsPer5Min: '9',
      alarmQueueAgeMinutes: '45',
      alarmSweeperLagPeriods: '3',
      alarmStaleNotJudgedHours: '12',
    },
    { bundle: false },
  );
}, 120_000);
afterAll(() => s?.cleanup());

/** A dashboard body with its CloudFormation joins flattened to text. */
function dashboardBody(): string {
  const [dashboard] = Object.values(s.template.findResources('AWS::CloudWatch::Dashboard'));
  const body = (dashboard as { Properties: { DashboardBody: unknown } }).Properties.DashboardBody;
  const flatten = (node: unknown): string => {
    if (typeof node === 'string') return node;
    if (Array.isArray(node)) return node.map(flatten).join('');
    if (node && typeof node === 'object' && 'Fn::Join' in node) {
      const [, parts] = (node as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      return parts.map(flatten).join('');
    }
    return JSON.stringify(node);
  };
  return flatten(body);
}

describe('the dashboard', () => {
  it('exists once and its URL is a stack output', () => {
    s.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const outputs = s.template.findOutputs('DashboardUrl');
    expect(JSON.stringify(outputs)).toContain('#dashboards/dashboard/');
  });

  it('reads as an operator asks: acting, blocked, healthy', () => {
    const body = dashboardBody();
    const order = ['Is automation acting?', 'Is it blocked?', 'Is it healthy?'].map((h) => body.indexOf(h));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('shows every application metric, and the Lambda, SQS and DynamoDB basics', () => {
    const body = dashboardBody();
    for (const name of Object.keys(METRIC_CATALOGUE)) {
      // NewestEventAge is for people who want it in the console; the dashboard shows the lag.
      if (name === 'NewestEventAge') continue;
      expect(body, name).toContain(name);
    }
    for (const basic of [
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
      'Errors',
      'Throttles',
      'Duration',
      'ThrottledRequests',
      'ConsumedWriteCapacityUnits',
      '5xx',
    ])
      expect(body, basic).toContain(basic);
  });
});

describe('the saved queries', () => {
  it('cover one request, denials by rule, errors by function, ticks left behind, slow Console API calls, over all three log groups', () => {
    const queries = Object.values(s.template.findResources('AWS::Logs::QueryDefinition')).map(
      (q) => q.Properties as { Name: string; QueryString: string; LogGroupNames: unknown[] },
    );
    expect(queries.map((q) => q.Name).sort()).toEqual([
      'console-autopilot/denials by rule',
      'console-autopilot/errors by function',
      'console-autopilot/one request by id',
      'console-autopilot/release tick behind',
      'console-autopilot/slowest Console API calls',
    ]);
    for (const q of queries) expect(q.LogGroupNames).toHaveLength(3);
    const byName = Object.fromEntries(queries.map((q) => [q.Name.split('/')[1], q.QueryString]));
    expect(byName['one request by id']).toContain('filter requestId = ');
    expect(byName['denials by rule']).toContain('stats count(*) as denials by rule');
    expect(byName['errors by function']).toContain('level = "error"');
    expect(byName['slowest Console API calls']).toContain('sort ConsoleApiLatency desc');
    expect(byName['release tick behind']).toContain('filter message like /release tick out of time/');
  });
});

describe('the alarms', () => {
  const alarms = () =>
    Object.entries(s.template.findResources('AWS::CloudWatch::Alarm')).map(([id, a]) => ({
      id,
      ...(a.Properties as {
        AlarmDescription: string;
        Threshold: number;
        EvaluationPeriods: number;
        AlarmActions: unknown[];
      }),
    }));
  const named = (prefix: string) => {
    const found = alarms().find((a) => a.id.startsWith(prefix));
    if (!found) throw new Error(`no alarm ${prefix}`);
    return found;
  };

  it('are the ones that mean something, each telling what to do, each paging the topic', () => {
    const ids = alarms().map((a) => a.id.replace(/[0-9A-F]{8}$/, ''));
    expect(ids.sort()).toEqual(
      [
        'ActionsQueueBacklog',
        'ActionsQueueUnreachable',
        'ConsoleApiForbidden',
        'ConsoleApiThrottled',
        'ConsoleApiUnauthorized',
        'ConsoleApiServerErrors',
        'ConsoleApiUnreachable',
        'DeadLetterQueueNotEmpty',
        'ReleaseTickBehind',
        'ReleaseTickNotRunning',
        'SlackPostsFailing',
        'SweeperErrors',
        'SweeperLagging',
        'SweeperNotRunning',
        'StaleSweepNotJudging',
        'WebhookCannotSign',
        'WebhookServerErrors',
        'WebhookSigningSecretWrong',
        'WebhookStateUnreachable',
        'WebhookThrottled',
        'WorkerErrors',
      ].sort(),
    );
    for (const alarm of alarms()) {
      expect(alarm.AlarmDescription.length, alarm.id).toBeGreaterThan(60);
      expect(alarm.AlarmActions, alarm.id).toHaveLength(1);
    }
    expect(named('DeadLetterQueueNotEmpty').AlarmDescription).toContain('npx autopilot dlq list');
    expect(named('ConsoleApiUnauthorized').AlarmDescription).toContain('revoked');
    // A key the platform answers 403 (read-only, or lacking a permission) pages at the first one.
    expect(named('ConsoleApiForbidden')).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(named('ConsoleApiForbidden').AlarmDescription).toContain('403');
  });

  it('take their thresholds from context', () => {
    expect(named('ConsoleApiThrottled')).toMatchObject({ Threshold: 25, EvaluationPeriods: 3 });
    expect(named('ConsoleApiUnreachable')).toMatchObject({ Threshold: 7, EvaluationPeriods: 2 });
    expect(named('ConsoleApiServerErrors')).toMatchObject({ Threshold: 9, EvaluationPeriods: 2 });
    expect(named('ActionsQueueBacklog').Threshold).toBe(45 * 60);
    // Three periods of a 10-minute schedule.
    expect(named('SweeperLagging').Threshold).toBe(3 * 10 * 60);
    expect(named('StaleSweepNotJudging').Threshold).toBe(12 * 3600);
  });

  it('watch the application metrics the functions emit', () => {
    s.template.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      Match.objectLike({
        Metrics: Match.arrayWith([
          Match.objectLike({
            MetricStat: Match.objectLike({
              Metric: Match.objectLike({
                Namespace: 'ConsoleAutopilot',
                MetricName: 'ConsoleApiUnauthorized',
                Dimensions: [{ Name: 'Service', Value: 'worker' }],
              }),
            }),
          }),
        ]),
      }),
    );
  });
});

describe('context values', () => {
  const app = resolve(import.meta.dirname, '../../infra/app.ts');
  const synthWith = (context: string[]) => {
    const outdir = mkdtempSync(join(tmpdir(), 'autopilot-synth-'));
    try {
      return spawnSync(process.execPath, ['--import', 'tsx', app], {
        cwd: resolve(import.meta.dirname, '../..'),
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          ...process.env,
          CDK_OUTDIR: outdir,
          CDK_CONTEXT_JSON: JSON.stringify(
            Object.fromEntries(context.map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)])),
          ),
        },
      });
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  };

  it.each([
    ['alarmEmail=oncall', 'context value "alarmEmail" must be an e-mail address, got "oncall"'],
    [
      'nodeRuntime=nodejs18.x',
      'context value "nodeRuntime" must be one of nodejs24.x, nodejs22.x, got "nodejs18.x"',
    ],
    ['workerMaxConcurrency=1', 'context value "workerMaxConcurrency" must be from 2 to 1000, got 1'],
    ['alarmQueueAgeMinutes=0', 'context value "alarmQueueAgeMinutes" must be from 1 to 5759, got 0'],
    ['sweepSchedule=0x1E', 'context value "sweepSchedule" must be an integer, got "0x1E"'],
    [
      'existingSecretArn=arn:aws:secretsmanager:eu-west-1:123456789012:secret:x',
      'context value "existingSecretArn" must be a complete Secrets Manager ARN',
    ],
  ])('%s stops the synth with one line', (setting, message) => {
    const run = synthWith([setting]);
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });
});

describe('the runtime', () => {
  it('is the newest by default, and nodejs22.x on request (the bundles are built for node22)', () => {
    const runtimes = (x: Synthesized) =>
      Object.values(x.template.findResources('AWS::Lambda::Function')).map(
        (f) => (f.Properties as { Runtime: string }).Runtime,
      );
    expect(new Set(runtimes(s))).toEqual(new Set(['nodejs24.x']));
    const pinned = synthesize({ nodeRuntime: 'nodejs22.x' }, { bundle: false });
    try {
      expect(new Set(runtimes(pinned))).toEqual(new Set(['nodejs22.x']));
    } finally {
      pinned.cleanup();
    }
  });
});
