/**
 * Existing secrets encrypted with a customer-managed KMS key: the functions could read the
 * secret (`secretsmanager:GetSecretValue`) but not decrypt it, so a team whose rules require
 * such keys got a stack that never starts. Context `secretsKmsKeyArn` names the key; each
 * function may then decrypt with it, and only through Secrets Manager in the stack's region.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from '../infra/synth.js';

const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:autopilot/worker-AbCdEf';
const FUNCTIONS = ['Webhook', 'Worker', 'Sweeper'] as const;

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
});

describe('without secretsKmsKeyArn', () => {
  it('grants no function anything on KMS (the secrets use the AWS-managed key)', () => {
    const s = synthesize({}, { bundle: false });
    try {
      for (const name of FUNCTIONS) expect(kmsStatements(s, name)).toEqual([]);
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
