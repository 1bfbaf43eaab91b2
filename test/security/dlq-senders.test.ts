/**
 * The DLQ had no resource policy but TLS-only: a principal outside `ciPrincipals` with broad SQS
 * rights in the account could put a `ci:` request there (no proof needed for `ci:`), and an
 * operator's `dlq redrive --all` would send it to the actions queue under the operator's name,
 * where the worker takes it as CI. Only the worker sends to the DLQ (its poison moves); SQS's own
 * move after five receives needs no SendMessage permission, so everybody else is denied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from '../infra/synth.js';

const CI_ROLE = 'arn:aws:iam::210987654321:role/github-deploy';

interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Principal?: unknown;
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ ciPrincipals: `${CI_ROLE},123412341234` }, { bundle: false });
});
afterAll(() => s?.cleanup());

const dlqPolicy = () =>
  Object.values(s.json.Resources).find(
    (r) =>
      r.Type === 'AWS::SQS::QueuePolicy' &&
      JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: s.logicalId('DeadLetterQueue') }]),
  )?.Properties as { PolicyDocument: { Statement: Statement[] } } | undefined;

describe('the dead-letter queue', () => {
  it('denies SendMessage to every principal but the worker, CI principals included', () => {
    const deny = dlqPolicy()?.PolicyDocument.Statement.find((st) => st.Sid === 'OnlyTheWorkerSends');
    expect(deny).toEqual({
      Sid: 'OnlyTheWorkerSends',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'sqs:SendMessage',
      Resource: { 'Fn::GetAtt': [s.logicalId('DeadLetterQueue'), 'Arn'] },
      Condition: {
        ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [s.logicalId('Worker/Role'), 'Arn'] } },
      },
    });
  });

  it('allows nobody to send there through its policy', () => {
    const allows = dlqPolicy()?.PolicyDocument.Statement.filter((st) => st.Effect === 'Allow') ?? [];
    expect(allows).toEqual([]);
  });
});
