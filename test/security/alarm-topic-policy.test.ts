/**
 * The alarm topic has a policy of its own (`enforceSSL` adds a TLS-only deny), and an
 * `AWS::SNS::TopicPolicy` replaces SNS's default access policy, whose account-wide allow
 * (`AWS:SourceOwner`) is what lets CloudWatch publish an alarm's notification. With the deny alone,
 * nothing allows CloudWatch to publish: every alarm turned ALARM in the console, its history said
 * "is not authorized to perform: SNS:Publish", and nobody was paged (AWS Knowledge Center,
 * cloudwatch-receive-sns-for-alarm-trigger). Only in AWS: no emulator here evaluates topic policies.
 *
 * The topic's policy is judged here as SNS would for one of the stack's alarms publishing over
 * TLS: an explicit deny wins; otherwise a statement must allow it (a service principal has no
 * identity policy to fall back on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from '../infra/synth.js';

const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';

interface Statement {
  Effect: string;
  Action: string | string[];
  Principal?: string | { AWS?: unknown; Service?: unknown };
  Resource?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** Resolves the template's references as CloudFormation would in ACCOUNT and REGION. */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value && typeof value === 'object') {
    const ref = (value as { Ref?: string }).Ref;
    if (ref === 'AWS::AccountId') return ACCOUNT;
    if (ref === 'AWS::Region') return REGION;
    if (ref === 'AWS::Partition') return 'aws';
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map(resolve).join(join[0]);
  }
  return value;
}

/** IAM's StringLike / ArnLike: `*` any run of characters, `?` any one. */
const like = (pattern: string, value: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(value);

function conditionHolds(condition: Statement['Condition'], context: Record<string, string>): boolean {
  return Object.entries(condition ?? {}).every(([operator, byKey]) =>
    Object.entries(byKey).every(([key, raw]) => {
      const values = [resolve(raw)].flat().map(String);
      const actual = context[key];
      if (actual === undefined) return operator.endsWith('IfExists');
      switch (operator) {
        case 'Bool':
        case 'StringEquals':
        case 'ArnEquals':
          return values.includes(actual);
        case 'StringNotEquals':
        case 'ArnNotEquals':
          return !values.includes(actual);
        case 'StringLike':
        case 'ArnLike':
          return values.some((v) => like(v, actual));
        default:
          throw new Error(`condition operator ${operator} is not modelled here`);
      }
    }),
  );
}

const namesService = (st: Statement, service: string) =>
  st.Principal === '*' ||
  JSON.stringify(st.Principal) === JSON.stringify({ AWS: '*' }) ||
  (typeof st.Principal === 'object' && [st.Principal.Service].flat().includes(service));

let s: Synthesized;
beforeAll(() => {
  s = synthesize(
    { alarmEmail: 'oncall@example.com' },
    { bundle: false, env: { account: ACCOUNT, region: REGION } },
  );
});
afterAll(() => s?.cleanup());

describe('the alarm topic', () => {
  it("lets the stack's alarms publish to it (its own policy replaces SNS's default, which did)", () => {
    const topicId = s.logicalId('AlarmTopic');
    const alarms = Object.entries(s.json.Resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
    // Every alarm pages through this topic: a topic nothing may publish to pages nobody.
    expect(alarms.length).toBeGreaterThan(0);
    for (const [, alarm] of alarms) expect(alarm.Properties?.AlarmActions).toEqual([{ Ref: topicId }]);

    const policies = Object.values(s.json.Resources).filter(
      (r) =>
        r.Type === 'AWS::SNS::TopicPolicy' &&
        JSON.stringify(r.Properties?.Topics) === JSON.stringify([{ Ref: topicId }]),
    );
    // With no TopicPolicy at all SNS's default policy would apply; the stack has one (TLS only).
    expect(policies).toHaveLength(1);
    const document = policies[0]?.Properties?.PolicyDocument as { Statement: Statement[] } | undefined;
    const statements = document?.Statement ?? [];
    const context = {
      'aws:SecureTransport': 'true',
      'aws:SourceArn': `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:ConsoleAutopilot-WorkerErrors`,
      'aws:SourceAccount': ACCOUNT,
    };
    const applies = (st: Statement) =>
      [st.Action].flat().some((a) => a.toLowerCase() === 'sns:publish') &&
      namesService(st, 'cloudwatch.amazonaws.com') &&
      conditionHolds(st.Condition, context);
    expect(statements.filter((st) => st.Effect === 'Deny').filter(applies)).toEqual([]);
    expect(statements.filter((st) => st.Effect === 'Allow').filter(applies)).toHaveLength(1);
    // ... and not another account's alarms (the topic's name is no secret).
    const foreign = {
      ...context,
      'aws:SourceArn': `arn:aws:cloudwatch:${REGION}:444455556666:alarm:x`,
      'aws:SourceAccount': '444455556666',
    };
    expect(
      statements.filter(
        (st) =>
          st.Effect === 'Allow' &&
          [st.Action].flat().some((a) => a.toLowerCase() === 'sns:publish') &&
          namesService(st, 'cloudwatch.amazonaws.com') &&
          conditionHolds(st.Condition, foreign),
      ),
    ).toEqual([]);
  });
});
