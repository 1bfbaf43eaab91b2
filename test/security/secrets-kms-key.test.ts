/**
 * Existing secrets encrypted with a customer-managed KMS key: the functions could read the
 * secret (`secretsmanager:GetSecretValue`) but not decrypt it, so a team whose rules require
 * such keys got a stack that never starts. Context `secretsKmsKeyArn` names the key; each
 * function may then decrypt with it, and only through Secrets Manager in the stack's region.
 * The secrets the stack creates itself (the operator secrets it makes when no existing one is
 * named, and the generated requester keys) are encrypted with that key too: an organisation
 * whose rule is "every secret under our own key" (an SCP on CreateSecret, a Config rule) would
 * otherwise refuse the deployment or flag the stack.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from '../infra/synth.js';

const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:autopilot/worker-AbCdEf';
const FUNCTIONS = ['Webhook', 'Worker', 'Sweeper'] as const;
const CREATED_SECRETS = [
  'Secret',
  'SweeperSecret',
  'WebhookSecret',
  'WebhookRequesterKey',
  'SweeperRequesterKey',
];

/** The KmsKeyId of every secret in the template, by construct id (absent: the AWS-managed key). */
function secretKeys(s: Synthesized): Record<string, unknown> {
  return Object.fromEntries(
    CREATED_SECRETS.filter((id) => s.stack.node.tryFindChild(id)?.node.defaultChild).map((id) => [
      id,
      s.json.Resources[s.logicalId(id)]?.Properties?.KmsKeyId,
    ]),
  );
}

const secretResources = (s: Synthesized) =>
  Object.values(s.json.Resources).filter((r) => r.Type === 'AWS::SecretsManager::Secret');

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

function statementsOf(s: Synthesized, name: (typeof FUNCTIONS)[number]): Statement[] {
  const roleId = s.logicalId(`${name}/Role`);
  return Object.values(s.json.Resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) => JSON.stringify(r.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(
      (r) => (r.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement,
    );
}

const kmsStatements = (s: Synthesized, name: (typeof FUNCTIONS)[number]) =>
  statementsOf(s, name).filter((st) => [st.Action].flat().some((a) => a.startsWith('kms:')));

describe('context secretsKmsKeyArn', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({ secretsKmsKeyArn: KEY, existingSecretArn: SECRET }, { bundle: false });
  });
  afterAll(() => s?.cleanup());

  it('lets each function decrypt with that key only, and only through Secrets Manager in its region', () => {
    for (const name of FUNCTIONS) {
      expect(kmsStatements(s, name)).toEqual([
        {
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: KEY,
          Condition: {
            StringEquals: {
              'kms:ViaService': {
                'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
              },
            },
          },
        },
      ]);
    }
  });

  it('keeps the named existing secret as it is and creates every other secret under the key', () => {
    // The worker's secret is the operator's own (only referenced); the rest are created here.
    expect(s.stack.node.findChild('Secret').node.defaultChild).toBeUndefined();
    expect(secretResources(s)).toHaveLength(4);
    expect(secretKeys(s)).toEqual({
      SweeperSecret: KEY,
      WebhookSecret: KEY,
      WebhookRequesterKey: KEY,
      SweeperRequesterKey: KEY,
    });
    const worker = s.json.Resources[s.logicalId('Worker/Function')]?.Properties as {
      Environment: { Variables: Record<string, unknown> };
    };
    expect(worker.Environment.Variables.AUTOPILOT_SECRET_ID).toBe(SECRET);
  });
});

describe('secretsKmsKeyArn without existing secrets', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({ secretsKmsKeyArn: KEY }, { bundle: false });
  });
  afterAll(() => s?.cleanup());

  it('creates all five secrets (operator secrets and requester keys) under the key, none under the AWS-managed one', () => {
    expect(secretResources(s)).toHaveLength(5);
    expect(secretResources(s).map((r) => r.Properties?.KmsKeyId)).toEqual(Array(5).fill(KEY));
  });

  it('still gives each function one kms:Decrypt on the key, through Secrets Manager only', () => {
    for (const name of FUNCTIONS) {
      const statements = kmsStatements(s, name);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatchObject({ Effect: 'Allow', Action: 'kms:Decrypt', Resource: KEY });
    }
  });
});

describe('without secretsKmsKeyArn', () => {
  it('grants no function anything on KMS and creates the secrets under the AWS-managed key', () => {
    const s = synthesize({}, { bundle: false });
    try {
      for (const name of FUNCTIONS) expect(kmsStatements(s, name)).toEqual([]);
      expect(secretResources(s).map((r) => r.Properties?.KmsKeyId)).toEqual(Array(5).fill(undefined));
    } finally {
      s.cleanup();
    }
  });

  it.each([
    'alias/autopilot',
    'arn:aws:kms:eu-west-1:123456789012:alias/autopilot',
    '1234abcd-12ab-34cd-56ef-1234567890ab',
    'arn:aws:kms:eu-west-1:123456789012:key/*',
  ])('refuses %s, naming the key: only a key ARN works in an IAM policy', (value) => {
    expect(() => synthesize({ secretsKmsKeyArn: value }, { bundle: false })).toThrow(
      `context value "secretsKmsKeyArn" must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>), got "${value}"`,
    );
  });
});

describe('README', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');

  it('says the created secrets use the key, and what the deploy and the operator need on it', () => {
    const row = readme.split('\n').find((line) => line.startsWith('| `secretsKmsKeyArn` |')) ?? '';
    expect(row).toContain('Every secret the stack creates');
    expect(row).not.toContain('keep the AWS-managed key');
    const start = readme.indexOf('**Secrets under your own KMS key**');
    const section = readme.slice(start, readme.indexOf('**Upgrading from one secret**', start));
    expect(section).toMatch(/CloudFormation.*kms:GenerateDataKey` and `kms:Decrypt`/s);
    expect(section).toMatch(/put-secret-value.*kms:GenerateDataKey` and `kms:Decrypt`/s);
  });
});
