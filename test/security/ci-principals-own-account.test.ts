/**
 * `ciPrincipals` takes account ids so that CI in another account may send. Naming the stack's own
 * account instead cancelled the queue's deny for everyone in it (the deny's conditions are
 * ANDed: "not a named ARN" and "not a named account"), so any role or user there with SQS rights
 * could send as `ci:`, and synth said nothing. Synth now refuses it when the account is known,
 * and the template keeps denying the stack's own account's unnamed principals when it is not.
 *
 * The queue policy is judged here the way IAM would for these statements: an explicit deny
 * wins; otherwise a principal of the queue's own account may send on its own IAM rights, one of
 * another account only if the queue's policy allows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from '../infra/synth.js';

const STACK_ACCOUNT = '111122223333';
const CI_ACCOUNT = '123412341234';
const CI_ROLE = `arn:aws:iam::${STACK_ACCOUNT}:role/github-deploy`;

interface Statement {
  Effect: string;
  Action: string | string[];
  Principal?: { AWS?: unknown };
  Condition?: Record<string, Record<string, unknown>>;
}

/** Resolves the template's references as CloudFormation would in `account`. */
function resolve(value: unknown, account: string): unknown {
  if (Array.isArray(value)) return value.map((v) => resolve(v, account));
  if (value && typeof value === 'object') {
    const ref = (value as { Ref?: string }).Ref;
    if (ref === 'AWS::AccountId') return account;
    if (ref === 'AWS::Partition') return 'aws';
    const getAtt = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
    if (getAtt) return `arn:aws:iam::${account}:role/${getAtt[0]}`;
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map((v) => resolve(v, account)).join(join[0]);
  }
  return value;
}

function mayBeSentBy(
  s: Synthesized,
  deployedIn: string,
  principal: { arn: string; account: string },
): boolean {
  const policy = Object.values(s.json.Resources).find(
    (r) =>
      r.Type === 'AWS::SQS::QueuePolicy' &&
      JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: s.logicalId('ActionsQueue') }]),
  )?.Properties as { PolicyDocument: { Statement: Statement[] } };
  const keys: Record<string, string> = {
    'aws:PrincipalArn': principal.arn,
    'aws:PrincipalAccount': principal.account,
  };
  const sends = (st: Statement) => [st.Action].flat().includes('sqs:SendMessage');
  const holds = (st: Statement) =>
    Object.entries(st.Condition ?? {}).every(([operator, byKey]) =>
      Object.entries(byKey).every(([key, raw]) => {
        const values = [resolve(raw, deployedIn)].flat();
        const equal = values.includes(keys[key]);
        if (operator === 'ArnNotEquals' || operator === 'StringNotEquals') return !equal;
        if (operator === 'ArnEquals' || operator === 'StringEquals') return equal;
        throw new Error(`this test does not judge the operator ${operator}`);
      }),
    );
  const statements = policy.PolicyDocument.Statement.filter(sends);
  if (statements.some((st) => st.Effect === 'Deny' && holds(st))) return false;
  if (principal.account === deployedIn) return true;
  return statements.some((st) => {
    if (st.Effect !== 'Allow') return false;
    const named = [resolve(st.Principal?.AWS, deployedIn)].flat();
    return named.includes(principal.arn) || named.includes(`arn:aws:iam::${principal.account}:root`);
  });
}

describe('an environment-agnostic stack (the account is known only at deploy)', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({ ciPrincipals: `${CI_ROLE},${CI_ACCOUNT}` }, { bundle: false });
  });
  afterAll(() => s?.cleanup());

  it('lets no unnamed principal of the stack’s own account send, even when its account id is in ciPrincipals', () => {
    const anyone = (account: string) => ({ arn: `arn:aws:iam::${account}:role/anyone`, account });
    expect(mayBeSentBy(s, STACK_ACCOUNT, anyone(STACK_ACCOUNT))).toBe(false);
    // The same template deployed into the account it names as CI: that account is now the stack's own.
    expect(mayBeSentBy(s, CI_ACCOUNT, anyone(CI_ACCOUNT))).toBe(false);
  });

  it('still lets the functions, the named roles and a named other account send', () => {
    const role = (name: string) => ({ arn: `arn:aws:iam::${STACK_ACCOUNT}:role/${s.logicalId(name)}` });
    for (const name of ['Webhook/Role', 'Worker/Role', 'Sweeper/Role'])
      expect(mayBeSentBy(s, STACK_ACCOUNT, { ...role(name), account: STACK_ACCOUNT })).toBe(true);
    expect(mayBeSentBy(s, STACK_ACCOUNT, { arn: CI_ROLE, account: STACK_ACCOUNT })).toBe(true);
    const ciAccountRole = { arn: `arn:aws:iam::${CI_ACCOUNT}:role/runner`, account: CI_ACCOUNT };
    expect(mayBeSentBy(s, STACK_ACCOUNT, ciAccountRole)).toBe(true);
    const strangerRole = { arn: 'arn:aws:iam::999988887777:role/runner', account: '999988887777' };
    expect(mayBeSentBy(s, STACK_ACCOUNT, strangerRole)).toBe(false);
  });
});

describe('a stack whose account is known at synth', () => {
  const env = { account: STACK_ACCOUNT, region: 'eu-west-1' };

  it('refuses ciPrincipals naming its own account, saying what it would open and what to name instead', () => {
    expect(() => synthesize({ ciPrincipals: `${CI_ROLE},${STACK_ACCOUNT}` }, { bundle: false, env })).toThrow(
      `ciPrincipals names ${STACK_ACCOUNT}, the stack's own account: every role and user in it could then send to the actions queue as ci:. Name the CI roles by ARN instead (arn:aws:iam::${STACK_ACCOUNT}:role/<name>)`,
    );
  });

  it('accepts another account and its own roles', () => {
    const s = synthesize({ ciPrincipals: `${CI_ROLE},${CI_ACCOUNT}` }, { bundle: false, env });
    try {
      expect(mayBeSentBy(s, STACK_ACCOUNT, { arn: CI_ROLE, account: STACK_ACCOUNT })).toBe(true);
      const anyone = { arn: `arn:aws:iam::${STACK_ACCOUNT}:role/anyone`, account: STACK_ACCOUNT };
      expect(mayBeSentBy(s, STACK_ACCOUNT, anyone)).toBe(false);
    } finally {
      s.cleanup();
    }
  });
});
