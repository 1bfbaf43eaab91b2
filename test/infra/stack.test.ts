/**
 * The stack as a security reviewer and an operator would read it: what it creates, with which
 * settings, and exactly which permissions each function holds. Synthesized once (bundling the
 * real handlers) with non-default context, so that every context value is seen to take effect.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDLER_ENTRIES, REPO_ROOT } from '../../infra/bundling.js';
import { SWEEPER_TABLE_GRANTS, WORKER_TABLE_GRANTS } from '../../infra/table-grants.js';
import { normalizedPolicyText, parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { policySha256 } from '../../src/wiring/policy-file.js';
import { type CfnResourceJson, type Synthesized, synthesize } from './synth.js';

const CONTEXT = {
  consoleApiBaseUrl: 'https://console.example.com',
  sweepSchedule: '10', // strings, as `-c key=value` delivers them
  workerMaxConcurrency: '4',
  alarmEmail: 'oncall@example.com',
};

let s: Synthesized;
beforeAll(() => {
  s = synthesize(CONTEXT);
}, 120_000);
afterAll(() => s?.cleanup());

const resourcesOfType = (type: string): Array<[string, CfnResourceJson]> =>
  Object.entries(s.json.Resources).filter(([, r]) => r.Type === type);

const statementsOf = (policy: CfnResourceJson): Statement[] =>
  (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement;

const environmentOf = (x: Synthesized, name: 'Webhook' | 'Worker' | 'Sweeper') =>
  (
    x.json.Resources[x.logicalId(`${name}/Function`)]!.Properties as {
      Environment: { Variables: Record<string, unknown> };
    }
  ).Environment.Variables;

const functionId = (name: 'Webhook' | 'Worker' | 'Sweeper') => s.logicalId(`${name}/Function`);
const functionProps = (name: 'Webhook' | 'Worker' | 'Sweeper') =>
  s.json.Resources[functionId(name)]?.Properties as Record<string, unknown>;

/** Every statement granted to a function's role, as "actions (sorted) -> resource logical id or *". */
function grantsOf(name: 'Webhook' | 'Worker' | 'Sweeper'): string[] {
  const roleId = s.logicalId(`${name}/Role`);
  const statements = resourcesOfType('AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(([, p]) => statementsOf(p));
  // One line per resource: cdk.json's minimizePolicies flag merges statements that share actions.
  return [
    ...new Set(
      statements.flatMap((st) =>
        [st.Resource].flat().map((resource) => describeStatement({ ...st, Resource: resource })),
      ),
    ),
  ].sort();
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

function describeStatement(st: Statement): string {
  const actions = [st.Action].flat().sort().join(',');
  const resources = [st.Resource].flat().map(resourceName).sort().join(',');
  return `${st.Effect} ${actions} -> ${resources}`;
}

function resourceName(r: unknown): string {
  if (r === '*') return '*';
  const ref = r as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (ref.Ref) return ref.Ref;
  if (ref['Fn::GetAtt']) return ref['Fn::GetAtt'][0];
  return JSON.stringify(r);
}

const grant = (actions: readonly string[], resource: string) =>
  `Allow ${[...actions].sort().join(',')} -> ${resource}`;

describe('the stack', () => {
  it('has no unacknowledged cdk-nag AwsSolutions finding, error or warning', () => {
    const report = JSON.parse(readFileSync(join(s.assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; violations: Array<{ ruleName: string; severity: string }> }>;
    };
    const open = report.pluginReports.flatMap((p) => p.violations.map((v) => `${v.severity} ${v.ruleName}`));
    expect(open).toEqual([]);
  });

  it('acknowledges only the expected cdk-nag rules, each with a reason of substance', () => {
    const acks: string[] = [];
    for (const construct of s.stack.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type !== 'aws:cdk:acknowledged-rules') continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
          expect(reason.length, `${id} at ${construct.node.path}`).toBeGreaterThan(80);
          acks.push(
            `${construct.node.path.replace('ConsoleAutopilot/', '')} ${id.replace(/^Annotation::/, '')}`,
          );
        }
      }
    }
    expect(acks.sort()).toEqual(
      [
        'Api AwsSolutions-APIG4',
        'AlarmTopic AwsSolutions-SNS2',
        'Secret AwsSolutions-SMG4',
        'WebhookSecret AwsSolutions-SMG4',
        'SweeperSecret AwsSolutions-SMG4',
        'WebhookRequesterKey AwsSolutions-SMG4',
        'SweeperRequesterKey AwsSolutions-SMG4',
        // The newest runtime needs no acknowledgment (AwsSolutions-L1 holds).
        ...['Webhook', 'Worker', 'Sweeper'].map((f) => `${f}/Role AwsSolutions-IAM5[Resource::*]`),
      ].sort(),
    );
  });

  it('lets CloudFormation name every resource', () => {
    const NAME_PROPERTIES = [
      'FunctionName',
      'QueueName',
      'TableName',
      'RoleName',
      'LogGroupName',
      'TopicName',
    ];
    for (const [id, resource] of Object.entries(s.json.Resources)) {
      // A literal string would be a fixed name; references to other resources are fine.
      for (const property of NAME_PROPERTIES) {
        expect(typeof resource.Properties?.[property], `${id}.${property}`).not.toBe('string');
      }
      if (resource.Type === 'AWS::SecretsManager::Secret') expect(resource.Properties?.Name).toBeUndefined();
    }
  });

  it('creates the secrets with empty JSON placeholders or generated keys, never a value', () => {
    s.template.resourceCountIs('AWS::SecretsManager::Secret', 5);
    for (const fields of [
      { consoleApiKey: '', slackWebhookUrl: '' },
      { slackSigningSecret: '', consoleReadOnlyApiKey: '' },
      { consoleReadOnlyApiKey: '', slackWebhookUrl: '' },
    ]) {
      s.template.hasResourceProperties('AWS::SecretsManager::Secret', {
        GenerateSecretString: {
          SecretStringTemplate: JSON.stringify(fields),
          GenerateStringKey: Match.anyValue(),
        },
        SecretString: Match.absent(),
      });
    }
    for (const [, secret] of resourcesOfType('AWS::SecretsManager::Secret')) {
      expect(secret.Properties?.SecretString).toBeUndefined();
    }
  });

  it('keeps a standard, encrypted, TLS-only actions queue that hands poison messages to the DLQ after 5 receives', () => {
    const queueId = s.logicalId('ActionsQueue');
    const dlqId = s.logicalId('DeadLetterQueue');
    const queue = s.json.Resources[queueId]?.Properties ?? {};
    expect(queue.FifoQueue).toBeUndefined();
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: 5,
    });
    // One number: the worker is told the same count (MAX_RECEIVE_COUNT, below).
    expect(MAX_RECEIVE_COUNT).toBe(5);
    expect(s.json.Resources[dlqId]?.Properties?.SqsManagedSseEnabled).toBe(true);
    // visibility >= 6x the worker's timeout
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * (functionProps('Worker').Timeout as number));
    for (const id of [queueId, dlqId]) {
      s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('keeps the DLQ when the stack is destroyed: its messages are requests nobody has dealt with', () => {
    s.template.hasResource('AWS::SQS::Queue', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ MessageRetentionPeriod: 14 * 24 * 3600 }),
    });
  });

  it('keeps state in an on-demand table with pk/sk, TTL on expiresAt, PITR, retained on delete', () => {
    s.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    s.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  it('builds every function the house way: the newest Node.js (24) on arm64, traced, its own log group with retention', () => {
    expect(resourcesOfType('AWS::Lambda::Function')).toHaveLength(3);
    for (const name of ['Webhook', 'Worker', 'Sweeper'] as const) {
      const fn = functionProps(name);
      expect(fn).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: s.logicalId(`${name}/Logs`) } },
      });
      expect(fn.FunctionName).toBeUndefined();
      // Source maps ship beside the bundle but are not loaded at runtime (cold start).
      expect(
        (fn.Environment as { Variables: Record<string, unknown> }).Variables.NODE_OPTIONS,
      ).toBeUndefined();
      s.template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
      expect(s.json.Resources[s.logicalId(`${name}/Logs`)]?.Properties?.RetentionInDays).toBe(30);
    }
  });

  it('bundles each handler minified with a source map, the AWS SDK inside, and the normalized policy beside it', () => {
    // The policy as validated at synth: defaults filled in, and its digest built into the bundle.
    const raw = readFileSync(join(REPO_ROOT, 'policy.json'), 'utf8');
    const normalized = normalizedPolicyText(parsePolicy(JSON.parse(raw)));
    expect(normalized).not.toBe(raw);
    for (const name of ['Webhook', 'Worker', 'Sweeper'] as const) {
      const key = (functionProps(name).Code as { S3Key: string }).S3Key;
      const dir = join(s.assembly.directory, `asset.${key.replace(/\.zip$/, '')}`);
      const shipped = readFileSync(join(dir, 'policy.json'));
      expect(shipped.toString('utf8')).toBe(normalized);
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(code).toContain(JSON.stringify(policySha256(shipped)));
      expect(code).not.toContain('__AUTOPILOT_VALIDATED_POLICY_SHA256__');
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      expect(code.startsWith("import { createRequire } from 'module'")).toBe(true);
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//); // bundled, not left to the runtime
      expect(code.length / code.split('\n').length).toBeGreaterThan(1000); // minified: long lines
      expect(JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')).sourcesContent).toBeUndefined();
    }
  });

  it('gives each function exactly the environment of the agreed contract', () => {
    const env = (name: 'Webhook' | 'Worker' | 'Sweeper') => environmentOf(s, name);
    const common = {
      AUTOPILOT_POLICY: '/var/task/policy.json',
      CONSOLE_API_BASE_URL: 'https://console.example.com',
      AUTOPILOT_SECRET_ID: { Ref: s.logicalId('Secret') },
      ACTIONS_QUEUE_URL: { Ref: s.logicalId('ActionsQueue') },
      STATE_TABLE_NAME: { Ref: s.logicalId('StateTable') },
    };
    const webhookKey = { WEBHOOK_REQUESTER_KEY_SECRET_ID: { Ref: s.logicalId('WebhookRequesterKey') } };
    const sweeperKey = { SWEEPER_REQUESTER_KEY_SECRET_ID: { Ref: s.logicalId('SweeperRequesterKey') } };
    expect(env('Webhook')).toEqual({
      ...common,
      AUTOPILOT_SECRET_ID: { Ref: s.logicalId('WebhookSecret') },
      ...webhookKey,
    });
    expect(env('Sweeper')).toEqual({
      ...common,
      AUTOPILOT_SECRET_ID: { Ref: s.logicalId('SweeperSecret') },
      ...sweeperKey,
    });
    // 4 worker containers share the whole 100/10 s and 900/15 min through the state table
    expect(env('Worker')).toEqual({
      ...common,
      ...webhookKey,
      ...sweeperKey,
      DLQ_URL: { Ref: s.logicalId('DeadLetterQueue') },
      MUTATION_LIMIT_10S: '100',
      MUTATION_LIMIT_15MIN: '900',
      // The queue's redrive count below: a failure on that receive is told as given up.
      MAX_RECEIVE_COUNT: String(MAX_RECEIVE_COUNT),
      // Its mutations respect the platform's review settings (context respectReviewSettings, default true).
      CONSOLE_RESPECT_REVIEW_SETTINGS: 'true',
    });
  });
});

describe('least privilege', () => {
  const readSecret = (id: string) =>
    grant(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'], s.logicalId(id));
  const own = (name: string) => [
    grant(['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], '*'),
    grant(['logs:CreateLogStream', 'logs:PutLogEvents'], s.logicalId(`${name}/Logs`)),
  ];
  // One line per statement on the table (each limited to some partitions: see least-privilege).
  // One line per resource and actions, as grantsOf reads them (two partitions may share actions).
  const table = (grants: typeof WORKER_TABLE_GRANTS) => [
    ...new Set(grants.map((g) => grant(g.actions, s.logicalId('StateTable')))),
  ];
  const send = (queue: string) =>
    grant(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], s.logicalId(queue));

  it('lets the webhook read its own secrets, send to the actions queue, get/put its own items and read the audit, nothing more', () => {
    expect(grantsOf('Webhook')).toEqual(
      [
        ...own('Webhook'),
        readSecret('WebhookSecret'),
        readSecret('WebhookRequesterKey'),
        // Its own items: the pause switch, queued marks and vetoes (a Deny's, read back when refused).
        grant(['dynamodb:GetItem', 'dynamodb:PutItem'], s.logicalId('StateTable')),
        // Read-only, for /autopilot why and held (the audit trail's and the held partitions: see least-privilege).
        grant(['dynamodb:GetItem', 'dynamodb:Query'], s.logicalId('StateTable')),
        // Marks on held requests (a click's answer, a cancel), and no other attribute: see least-privilege.
        grant(['dynamodb:UpdateItem'], s.logicalId('StateTable')),
        send('ActionsQueue'),
      ].sort(),
    );
  });

  it('lets the worker also consume the actions queue, re-send to it and send to the DLQ, nothing more', () => {
    const consume = grant(
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
      ],
      s.logicalId('ActionsQueue'),
    );
    expect(grantsOf('Worker')).toEqual(
      [
        ...own('Worker'),
        readSecret('Secret'),
        readSecret('WebhookRequesterKey'),
        readSecret('SweeperRequesterKey'),
        ...table(WORKER_TABLE_GRANTS),
        send('ActionsQueue'),
        send('DeadLetterQueue'),
        consume,
      ].sort(),
    );
  });

  it('lets the sweeper read its secret and key, send to the actions queue and use its own items of the table, nothing more', () => {
    expect(grantsOf('Sweeper')).toEqual(
      [
        ...own('Sweeper'),
        readSecret('SweeperSecret'),
        readSecret('SweeperRequesterKey'),
        ...table(SWEEPER_TABLE_GRANTS),
        send('ActionsQueue'),
      ].sort(),
    );
  });

  it('has no wildcard action anywhere and a wildcard resource only where X-Ray allows no other', () => {
    const statements = resourcesOfType('AWS::IAM::Policy').flatMap(([, p]) => statementsOf(p));
    expect(statements.length).toBeGreaterThan(0);
    for (const st of statements) {
      for (const action of [st.Action].flat()) expect(action).not.toMatch(/\*/);
      if ([st.Resource].flat().includes('*')) {
        expect([st.Action].flat().every((a) => a.startsWith('xray:'))).toBe(true);
      }
    }
  });

  it('attaches no AWS managed policy to any role', () => {
    for (const [, role] of resourcesOfType('AWS::IAM::Role')) {
      expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('the grants cover the code', () => {
  /** SDK commands that no handler sends on Lambda, though their module is bundled. */
  const NOT_SENT_ON_LAMBDA = new Set(['dynamodb:CreateTable']); // createStateTable: local stack and tests only
  /** IAM actions a command needs, when its name is not the action's. */
  const ACTIONS_OF: Record<string, string[]> = {
    'sqs:SendMessageBatch': ['sqs:SendMessage'],
    'sqs:DeleteMessageBatch': ['sqs:DeleteMessage'],
    'sqs:ChangeMessageVisibilityBatch': ['sqs:ChangeMessageVisibility'],
    'dynamodb:TransactWriteItems': ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    'dynamodb:TransactGetItems': ['dynamodb:GetItem'],
  };
  const SERVICE_PREFIX: Record<string, string> = {
    dynamodb: 'dynamodb',
    sqs: 'sqs',
    'secrets-manager': 'secretsmanager',
  };

  /**
   * Per handler, the AWS SDK commands its bundle sends: with the SDK left external, the
   * tree-shaken bundle constructs (`new XCommand(`) exactly the commands its code can send (a
   * helper module may import more than a given handler calls).
   */
  const commands = new Map<string, string[]>();
  beforeAll(async () => {
    const result = await build({
      entryPoints: Object.fromEntries(
        Object.entries(HANDLER_ENTRIES).map(([n, e]) => [n, join(REPO_ROOT, e)]),
      ),
      absWorkingDir: REPO_ROOT,
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      external: ['@aws-sdk/*'],
      outdir: 'out',
      logLevel: 'error',
    });
    for (const output of result.outputFiles) {
      const name = /([a-z]+)\.js$/.exec(output.path)?.[1];
      if (!name || !(name in HANDLER_ENTRIES)) continue;
      // Which client each command class comes from, then which classes the code constructs.
      const clientOf = new Map<string, string>();
      for (const m of output.text.matchAll(
        /import\s*\{([^}]*)\}\s*from\s*['"]@aws-sdk\/client-([a-z-]+)['"]/g,
      )) {
        for (const imported of (m[1] ?? '').split(',')) {
          const [exported, local = exported] = imported.trim().split(/\s+as\s+/);
          if (exported?.endsWith('Command') && local) clientOf.set(local, `${exported.slice(0, -7)} ${m[2]}`);
        }
      }
      const found = new Set<string>();
      for (const m of output.text.matchAll(/new (\w+Command\d*)\(/g)) {
        const [command, client] = (clientOf.get(m[1] ?? '') ?? '').split(' ');
        if (command && client) found.add(`${SERVICE_PREFIX[client] ?? client}:${command}`);
      }
      commands.set(name, [...found].filter((c) => !NOT_SENT_ON_LAMBDA.has(c)).sort());
    }
  });

  for (const [name, construct] of [
    ['webhook', 'Webhook'],
    ['worker', 'Worker'],
    ['sweeper', 'Sweeper'],
  ] as const) {
    it(`grants the ${name} every AWS call its code makes`, () => {
      const granted = new Set(grantsOf(construct).flatMap((g) => g.split(' ')[1]?.split(',') ?? []));
      const used = commands.get(name) ?? [];
      expect(used.length).toBeGreaterThan(0);
      const missing = used.flatMap((c) => ACTIONS_OF[c] ?? [c]).filter((action) => !granted.has(action));
      expect(missing).toEqual([]);
    });
  }
});

describe('the worker', () => {
  it('consumes the actions queue with partial batch failures and a concurrency cap from context', () => {
    s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [s.logicalId('ActionsQueue'), 'Arn'] },
      FunctionName: { Ref: functionId('Worker') },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 4 },
    });
  });
});

describe('the sweeper', () => {
  it('runs on the schedule from context, one run at a time', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(10 minutes)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId('Sweeper'), 'Arn'] } })],
    });
    expect(functionProps('Sweeper').ReservedConcurrentExecutions).toBe(1);
    expect(functionProps('Sweeper').Timeout).toBeLessThanOrEqual(10 * 60);
    s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('Sweeper') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 600,
    });
  });
});

describe('the release tick', () => {
  it('invokes the worker every minute to send held requests whose wait is over back to the queue', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [functionId('Worker'), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
  });
});

describe('the webhook', () => {
  it('sits behind an HTTP API stage with throttling and JSON access logs', () => {
    s.template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [s.logicalId('ApiAccessLogs'), 'Arn'] },
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
  });

  it('exposes only the two Slack routes and the health check, all to the webhook function', () => {
    const routes = resourcesOfType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties?.RouteKey);
    expect(routes.sort()).toEqual(['GET /health', 'POST /slack/commands', 'POST /slack/interactions']);
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: { 'Fn::GetAtt': [functionId('Webhook'), 'Arn'] },
      PayloadFormatVersion: '2.0',
    });
  });
});

describe('alarms', () => {
  const alarmProps = (id: string) => s.json.Resources[s.logicalId(id)]?.Properties as Record<string, unknown>;
  const topicRef = () => [{ Ref: s.logicalId('AlarmTopic') }];

  it('notify the alarm topic, which mails the address from context', () => {
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: s.logicalId('AlarmTopic') },
    });
    expect(resourcesOfType('AWS::CloudWatch::Alarm')).toHaveLength(21);
    for (const [, alarm] of resourcesOfType('AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties?.AlarmActions).toEqual(topicRef());
    }
  });

  it('fire when a message sits in the DLQ', () => {
    expect(alarmProps('DeadLetterQueueNotEmpty')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [s.logicalId('DeadLetterQueue'), 'QueueName'] } },
      ],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
  });

  it('fire on worker and sweeper errors', () => {
    for (const [id, fn] of [
      ['WorkerErrors', 'Worker'],
      ['SweeperErrors', 'Sweeper'],
    ] as const) {
      expect(alarmProps(id)).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(fn) } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('fire on webhook 5xx answers', () => {
    expect(alarmProps('WebhookServerErrors')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: [{ Name: 'ApiId', Value: { Ref: s.logicalId('Api') } }],
      Threshold: 1,
    });
  });

  it('fire when the sweeper has not run for two schedule periods while the release tick rule fires (a fresh stack not counted)', () => {
    const props = alarmProps('SweeperNotRunning');
    expect(props).toMatchObject({
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
    const metrics = props.Metrics as Array<{
      Id: string;
      Expression?: string;
      MetricStat?: Record<string, unknown>;
    }>;
    // Two periods of a 10-minute schedule; 15 of the 20 ticks (one a minute) fired.
    expect(metrics.find((m) => m.Expression)?.Expression).toBe(
      'IF(FILL(ticks, 0) >= 15 AND FILL(runs, 0) == 0, 1, 0)',
    );
    expect(metrics.find((m) => m.Id === 'runs')?.MetricStat).toMatchObject({
      Metric: {
        Namespace: 'AWS/Lambda',
        MetricName: 'Invocations',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId('Sweeper') } }],
      },
      Period: 2 * 10 * 60,
      Stat: 'Sum',
    });
    expect(metrics.find((m) => m.Id === 'ticks')?.MetricStat).toMatchObject({
      Metric: {
        Namespace: 'AWS/Events',
        MetricName: 'TriggeredRules',
        Dimensions: [{ Name: 'RuleName', Value: { Ref: s.logicalId('ReleaseTick') } }],
      },
      Period: 2 * 10 * 60,
      Stat: 'Sum',
    });
  });
});

describe('context', () => {
  // These variants look at wiring, not code: they skip bundling to stay fast.
  const EXISTING = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:autopilot-AbCdEf';
  let d: Synthesized;
  beforeAll(() => {
    d = synthesize({ existingSecretArn: EXISTING }, { bundle: false });
  });
  afterAll(() => d?.cleanup());

  it('imports an existing secret by ARN instead of creating one, and grants read on exactly it', () => {
    // The webhook's and the sweeper's secrets and the two generated requester keys are still created.
    d.template.resourceCountIs('AWS::SecretsManager::Secret', 4);
    const env = environmentOf(d, 'Worker');
    expect(env.AUTOPILOT_SECRET_ID).toBe(EXISTING);
    const workerResources = Object.values(d.json.Resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter(
        (r) => JSON.stringify(r.Properties?.Roles) === JSON.stringify([{ Ref: d.logicalId('Worker/Role') }]),
      )
      .flatMap(
        (r) =>
          (r.Properties as { PolicyDocument: { Statement: Array<{ Action: unknown; Resource: unknown }> } })
            .PolicyDocument.Statement,
      )
      .filter((st) => [st.Action].flat().includes('secretsmanager:GetSecretValue'))
      .flatMap((st) => [st.Resource].flat());
    expect(workerResources).toContain(EXISTING);
    expect(environmentOf(d, 'Sweeper').AUTOPILOT_SECRET_ID).toEqual({ Ref: d.logicalId('SweeperSecret') });
  });

  it('gives the sweeper an existing secret by ARN: the old shared secret keeps an upgrade running until a read key is set', () => {
    const shared = synthesize(
      { existingSecretArn: EXISTING, existingSweeperSecretArn: EXISTING },
      { bundle: false },
    );
    try {
      shared.template.resourceCountIs('AWS::SecretsManager::Secret', 3);
      expect(environmentOf(shared, 'Sweeper').AUTOPILOT_SECRET_ID).toBe(EXISTING);
      expect(environmentOf(shared, 'Worker').AUTOPILOT_SECRET_ID).toBe(EXISTING);
    } finally {
      shared.cleanup();
    }
    expect(() => synthesize({ existingSweeperSecretArn: 'autopilot-sweeper' }, { bundle: false })).toThrow(
      /existingSweeperSecretArn/,
    );
  });

  it('defaults to a 15-minute sweep, two worker containers sharing the whole budget, and no e-mail', () => {
    d.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)' });
    d.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    d.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ MUTATION_LIMIT_10S: '100', MUTATION_LIMIT_15MIN: '900' }),
      },
    });
    d.template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('refuses settings the platform or the budget cannot honour, naming the context key', () => {
    expect(() => synthesize({ workerMaxConcurrency: '1' }, { bundle: false })).toThrow(
      /workerMaxConcurrency/,
    );
    expect(() => synthesize({ sweepSchedule: 'often' }, { bundle: false })).toThrow(/sweepSchedule/);
    expect(() => synthesize({ consoleApiBaseUrl: 'console.example.com' }, { bundle: false })).toThrow(
      /consoleApiBaseUrl/,
    );
    expect(() => synthesize({ policyFile: 'no-such-policy.json' }, { bundle: false })).toThrow(/policy file/);
  });

  it('refuses to synthesize with a policy file the handlers would reject, naming every path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autopilot-policy-'));
    try {
      const file = join(dir, 'policy.json');
      writeFileSync(
        file,
        JSON.stringify({ version: 1, timezone: 'Mars/Olympus', approvals: { maxDeferHours: 0 } }),
      );
      expect(() => synthesize({ policyFile: file }, { bundle: false })).toThrow(
        `policy file ${file} is not a valid policy: timezone: expected an IANA time zone such as Europe/Berlin; approvals.maxDeferHours:`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
