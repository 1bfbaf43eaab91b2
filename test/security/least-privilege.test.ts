/**
 * Least privilege in the synthesized template: each secret is readable only by the functions
 * that need it (the Slack signing secret by the webhook alone, the key that may mutate never
 * by the webhook); each function touches only its own items of the state table, each with the
 * actions it uses there (`dynamodb:LeadingKeys`; the *-items tests drive every path against
 * those grants); the actions queue refuses SendMessage from every principal the
 * deployment did not name; and synth refuses a Console API URL that would carry the key in
 * clear text, in one line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/bundling.js';
import { consoleApiBaseUrlProblem } from '../../infra/context.js';
import {
  SWEEPER_TABLE_GRANTS,
  type TableGrant,
  WEBHOOK_HELD_ATTRIBUTES,
  WORKER_TABLE_GRANTS,
} from '../../infra/table-grants.js';
import {
  WEBHOOK_HELD_PARTITION_KEYS,
  WEBHOOK_PARTITION_KEYS,
  WEBHOOK_READ_PARTITION_KEYS,
} from '../../src/state/table.js';
import { type Synthesized, synthesize } from '../infra/synth.js';

const CI_ROLE = 'arn:aws:iam::210987654321:role/github-deploy';
const CI_ACCOUNT = '123412341234';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ ciPrincipals: `${CI_ROLE},${CI_ACCOUNT}` }, { bundle: false });
});
afterAll(() => s?.cleanup());

interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const FUNCTIONS = ['Webhook', 'Worker', 'Sweeper'] as const;

/** The statements of one function's role. */
function statementsOf(name: (typeof FUNCTIONS)[number]): Statement[] {
  const roleId = s.logicalId(`${name}/Role`);
  return Object.values(s.json.Resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) => JSON.stringify(r.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(
      (r) => (r.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement,
    );
}

/** Which functions may read a secret. */
function readersOf(secretId: string): string[] {
  const ref = JSON.stringify({ Ref: s.logicalId(secretId) });
  return FUNCTIONS.filter((f) =>
    statementsOf(f).some(
      (st) =>
        [st.Action].flat().includes('secretsmanager:GetSecretValue') &&
        [st.Resource].flat().some((r) => JSON.stringify(r) === ref),
    ),
  );
}

describe('secrets', () => {
  it('keep the Slack signing secret and the read-only key to the webhook', () => {
    expect(readersOf('WebhookSecret')).toEqual(['Webhook']);
  });

  it('keep the key that may mutate to the worker: the sweeper, which reads untrusted logged events, holds a read key', () => {
    expect(readersOf('Secret')).toEqual(['Worker']);
    expect(readersOf('SweeperSecret')).toEqual(['Sweeper']);
  });

  it('give each requester key to its signer and the worker only', () => {
    expect(readersOf('WebhookRequesterKey')).toEqual(['Webhook', 'Worker']);
    expect(readersOf('SweeperRequesterKey')).toEqual(['Worker', 'Sweeper']);
  });

  it('generate the requester keys, so no value is ever in the template or a shell', () => {
    for (const id of ['WebhookRequesterKey', 'SweeperRequesterKey']) {
      const secret = s.json.Resources[s.logicalId(id)];
      expect(secret?.Properties?.SecretString).toBeUndefined();
      expect(secret?.Properties?.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
    }
  });
});

describe('the state table', () => {
  const table = () => JSON.stringify({ 'Fn::GetAtt': [s.logicalId('StateTable'), 'Arn'] });
  const onTable = (name: (typeof FUNCTIONS)[number]) =>
    statementsOf(name).filter((st) => [st.Resource].flat().some((r) => JSON.stringify(r) === table()));

  it("is open to the webhook only for get and put on its own items' partition keys, reading the audit trail, and held requests", () => {
    const resource = { 'Fn::GetAtt': [s.logicalId('StateTable'), 'Arn'] };
    expect(onTable('Webhook')).toEqual(
      expect.arrayContaining([
        {
          // A person's Deny is put under veto#, and the Deny on record read back when it is refused.
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
          Resource: resource,
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['control#pause', 'veto#*', 'queued#*'] },
          },
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:Query'],
          Resource: resource,
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...WEBHOOK_READ_PARTITION_KEYS] },
          },
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:Query'],
          Resource: resource,
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...WEBHOOK_HELD_PARTITION_KEYS] },
          },
        },
        {
          Effect: 'Allow',
          Action: 'dynamodb:UpdateItem',
          Resource: resource,
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...WEBHOOK_HELD_PARTITION_KEYS] },
            // Its marks only: never the held request, which the release tick would re-sign.
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...WEBHOOK_HELD_ATTRIBUTES] },
          },
        },
      ]),
    );
    expect(onTable('Webhook')).toHaveLength(4);
    expect(WEBHOOK_HELD_ATTRIBUTES).not.toContain('request');
    expect(WEBHOOK_HELD_PARTITION_KEYS).toEqual(['held#all']);
    expect(WEBHOOK_PARTITION_KEYS).toEqual(['control#pause', 'veto#*', 'queued#*']);
    expect(WEBHOOK_READ_PARTITION_KEYS).toEqual(['audit#*']);
  });

  /** The statements a function's table grants should synthesize to, in order. */
  const statementsFor = (grants: readonly TableGrant[]) =>
    grants.map((g) => ({
      Effect: 'Allow',
      Action: [...g.actions].sort(),
      Resource: { 'Fn::GetAtt': [s.logicalId('StateTable'), 'Arn'] },
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...g.partitionKeys] } },
    }));
  const sorted = (statements: Statement[]) =>
    statements.map((st) => ({ ...st, Action: [st.Action].flat().sort() }));

  it("is open to the sweeper only for its own bookkeeping, a read of the pause switch and of its own archives' outcomes, each with the actions it uses there", () => {
    expect(sorted(onTable('Sweeper'))).toEqual(statementsFor(SWEEPER_TABLE_GRANTS));
    expect(
      SWEEPER_TABLE_GRANTS.map((g) => [[...g.actions].sort().join(','), g.partitionKeys.join(',')]),
    ).toEqual([
      ['dynamodb:GetItem', 'control#pause'],
      ['dynamodb:GetItem,dynamodb:PutItem', 'sweeper#cursor'],
      ['dynamodb:PutItem', 'eventsread'],
      ['dynamodb:DeleteItem,dynamodb:PutItem', 'sweeper#lease'],
      ['dynamodb:BatchGetItem,dynamodb:BatchWriteItem', 'sweeper#notified'],
      ['dynamodb:BatchWriteItem,dynamodb:Query', 'lastseen,watch'],
      ['dynamodb:BatchGetItem', 'audit#stale:*'],
    ]);
  });

  it("is open to the worker only for what a request's decision and execution need, the pause switch and vetoes read only", () => {
    expect(sorted(onTable('Worker'))).toEqual(statementsFor(WORKER_TABLE_GRANTS));
    expect(
      WORKER_TABLE_GRANTS.map((g) => [[...g.actions].sort().join(','), g.partitionKeys.join(',')]),
    ).toEqual([
      ['dynamodb:BatchGetItem', 'audit#*,effect#*,control#pause,veto#*,held#all,lastseen,eventsread'],
      ['dynamodb:GetItem', 'control#pause'],
      ['dynamodb:DeleteItem,dynamodb:GetItem,dynamodb:PutItem', 'audit#*,effect#*'],
      ['dynamodb:Query,dynamodb:UpdateItem', 'audit#*'],
      ['dynamodb:UpdateItem', 'counter#*'],
      ['dynamodb:DeleteItem,dynamodb:GetItem,dynamodb:Query,dynamodb:UpdateItem', 'held#all'],
      ['dynamodb:BatchGetItem,dynamodb:GetItem,dynamodb:PutItem,dynamodb:UpdateItem', 'budget#mutations'],
      ['dynamodb:UpdateItem', 'copies#*'],
      ['dynamodb:DeleteItem,dynamodb:PutItem,dynamodb:Query', 'lastreceive#all'],
    ]);
  });

  it('gives no function a statement on the table without a partition limit, nor another what only one owns', () => {
    for (const name of FUNCTIONS) {
      for (const st of onTable(name)) expect(st.Condition?.['ForAllValues:StringLike']).toBeDefined();
    }
    // Only a person (the webhook) writes the pause switch and vetoes; only the sweeper its bookkeeping.
    const writes = (name: (typeof FUNCTIONS)[number], pk: string) =>
      onTable(name).some(
        (st) =>
          [st.Action].flat().some((a) => /Put|Update|Delete|BatchWrite/.test(a)) &&
          JSON.stringify(st.Condition).includes(`"${pk}"`),
      );
    const reaches = (name: (typeof FUNCTIONS)[number], pk: string) =>
      onTable(name).some((st) => JSON.stringify(st.Condition).includes(`"${pk}`));
    for (const pk of ['control#pause', 'veto#*']) {
      expect(FUNCTIONS.filter((f) => writes(f, pk))).toEqual(['Webhook']);
    }
    for (const pk of ['watch', 'sweeper#']) {
      expect(FUNCTIONS.filter((f) => reaches(f, pk))).toEqual(['Sweeper']);
    }
    // The worker reads a config's last exposure before a stale sweep's archive; only the sweeper writes it.
    expect(FUNCTIONS.filter((f) => reaches(f, 'lastseen'))).toEqual(['Worker', 'Sweeper']);
    expect(FUNCTIONS.filter((f) => writes(f, 'lastseen'))).toEqual(['Sweeper']);
    // And how far the sweeper has read the event log, before such an archive runs.
    expect(FUNCTIONS.filter((f) => reaches(f, 'eventsread'))).toEqual(['Worker', 'Sweeper']);
    expect(FUNCTIONS.filter((f) => writes(f, 'eventsread'))).toEqual(['Sweeper']);
    for (const pk of ['effect#*', 'counter#*', 'budget#mutations']) {
      expect(FUNCTIONS.filter((f) => reaches(f, pk))).toEqual(['Worker']);
    }
    expect(FUNCTIONS.filter((f) => reaches(f, 'held#all'))).toEqual(['Webhook', 'Worker']);
  });
});

describe('the actions queue', () => {
  const queuePolicy = () =>
    Object.values(s.json.Resources).find(
      (r) =>
        r.Type === 'AWS::SQS::QueuePolicy' &&
        JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: s.logicalId('ActionsQueue') }]),
    )?.Properties as { PolicyDocument: { Statement: Statement[] } } | undefined;

  it('denies SendMessage to every principal but the three functions and the named CI principals', () => {
    const deny = queuePolicy()?.PolicyDocument.Statement.find((st) => st.Sid === 'OnlyNamedSenders');
    const roleArn = (name: string) => ({ 'Fn::GetAtt': [s.logicalId(`${name}/Role`), 'Arn'] });
    expect(deny).toEqual({
      Sid: 'OnlyNamedSenders',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'sqs:SendMessage',
      Resource: { 'Fn::GetAtt': [s.logicalId('ActionsQueue'), 'Arn'] },
      Condition: {
        ArnNotEquals: {
          'aws:PrincipalArn': [roleArn('Webhook'), roleArn('Worker'), roleArn('Sweeper'), CI_ROLE],
        },
        StringNotEquals: { 'aws:PrincipalAccount': [CI_ACCOUNT] },
      },
    });
  });

  it('allows the named CI principals to send (also from another account)', () => {
    const allows = queuePolicy()?.PolicyDocument.Statement.filter((st) => st.Effect === 'Allow') ?? [];
    const principals = allows.map((st) => JSON.stringify(st.Principal));
    expect(principals.some((p) => p.includes(CI_ROLE))).toBe(true);
    expect(principals.some((p) => p.includes(`:iam::${CI_ACCOUNT}:root`))).toBe(true);
    for (const st of allows) expect([st.Action].flat()).toContain('sqs:SendMessage');
  });

  it('refuses a CI principal that is neither an IAM ARN nor an account id, naming the context key', () => {
    expect(() => synthesize({ ciPrincipals: 'github-actions' }, { bundle: false })).toThrow(
      'context value "ciPrincipals": "github-actions" is neither an IAM role or user ARN nor a 12-digit account id',
    );
  });
});

describe('the Console API base URL', () => {
  it('must be https, except on loopback', () => {
    expect(consoleApiBaseUrlProblem('https://console.example.com')).toBeUndefined();
    expect(consoleApiBaseUrlProblem('http://localhost:4010')).toBeUndefined();
    expect(consoleApiBaseUrlProblem('http://127.0.0.1:4010')).toBeUndefined();
    expect(consoleApiBaseUrlProblem('http://console.example.com')).toMatch(/must be an https:\/\/ URL/);
    expect(consoleApiBaseUrlProblem('http://127.0.0.1.nip.io')).toMatch(/must be an https:\/\/ URL/);
    expect(consoleApiBaseUrlProblem('ftp://console.example.com')).toMatch(/must be an https:\/\/ URL/);
  });

  it('carries no credentials, and the refusal never repeats them', () => {
    for (const url of ['https://ops:hunter2@console.example.com', 'https://hunter2@console.example.com']) {
      const problem = consoleApiBaseUrlProblem(url);
      expect(problem).toMatch(/must not carry a user name or password/);
      expect(problem).not.toContain('hunter2');
    }
  });

  it('is a base the client can append /console/v1/… to: no query, no fragment, not /console/v1 itself', () => {
    expect(consoleApiBaseUrlProblem('https://gw.example.com/platform')).toBeUndefined();
    expect(consoleApiBaseUrlProblem('https://console.example.com/?region=eu')).toMatch(
      /no query or fragment/,
    );
    expect(consoleApiBaseUrlProblem('https://console.example.com/#x')).toMatch(/no query or fragment/);
    expect(consoleApiBaseUrlProblem('https://console.example.com/console/v1/')).toMatch(
      /without \/console\/v1/,
    );
  });

  it('stops `cdk synth` with one line, not a stack trace', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'autopilot-synth-'));
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'infra/app.ts')], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          ...process.env,
          CDK_OUTDIR: outdir,
          CDK_CONTEXT_JSON: JSON.stringify({ consoleApiBaseUrl: 'http://console.example.com' }),
        },
      });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        'console-autopilot: consoleApiBaseUrl must be an https:// URL (the API key would travel in clear text; http:// only for localhost), got "http://console.example.com"',
      ]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
