/**
 * A wrong or mis-rotated Slack signing secret (the webhook secret's `slackSigningSecret` not the
 * Slack app's) makes the webhook answer 401 to every Slack request: chat-ops is dead. Nothing
 * paged (a 4xx is no WebhookServerErrors, and no metric counted refused signatures). The endpoint
 * is public, so refused signatures alone would page on any scanner: the alarm pages when Slack's
 * requests are refused AND none is verified in the same 15 minutes, and a quiet night (no data)
 * never pages.
 *
 * The webhook wired the deployed way (webhookDepsFromEnv) on the emulators, with a signing secret
 * that is not the one the requests are signed with; real signed and unsigned requests; the alarm
 * from the synthesized stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import { webhookDepsFromEnv } from '../../src/wiring/from-env.js';
import { commandBody, SIGNING_SECRET, signedRequest } from '../helpers/slack-requests.js';
import { alarmReading, emittedMetrics, expectReadsEmitted } from '../infra/alarm-reading.js';
import { type Synthesized, synthesize } from '../infra/synth.js';
import { TEST_POLICY } from './harness.js';

let emulators: Emulators;
let synth: Synthesized;
beforeAll(async () => {
  emulators = await startEmulators();
  synth = synthesize({}, { bundle: false });
}, 120_000);
afterAll(async () => {
  synth?.cleanup();
  await emulators?.stop();
});

function deployedWebhook(signingSecret: string) {
  const lines: string[] = [];
  const deps = webhookDepsFromEnv(
    {
      SLACK_SIGNING_SECRET: signingSecret,
      WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
      AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      CONSOLE_API_KEY: 'unused-key',
      CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
      ACTIONS_QUEUE_URL: emulators.queueUrl,
      STATE_TABLE_NAME: emulators.tableName,
    },
    {
      policy: parsePolicy(TEST_POLICY),
      logger: createLogger({ service: 'webhook', sink: () => undefined }),
      metrics: createMetrics({ service: 'webhook', sink: (line) => lines.push(line) }),
    },
  );
  return { app: createWebhookApp(deps), lines };
}

const help = () => signedRequest('/slack/commands', commandBody({ text: 'help' }));

describe('a webhook whose Slack signing secret is not the Slack app’s', () => {
  it('counts each Slack request it refuses, and each it verifies, under the metrics one paging alarm reads', async () => {
    const wrong = deployedWebhook('the-secret-before-the-rotation-0123');
    const refused = await wrong.app.request(help());
    expect(refused.status).toBe(401);
    const right = deployedWebhook(SIGNING_SECRET);
    expect((await right.app.request(help())).status).toBe(200);

    const rejected = emittedMetrics(wrong.lines).filter((m) => m.name === 'SlackRequestsRejected');
    const verified = emittedMetrics(right.lines).filter((m) => m.name === 'SlackRequestsVerified');
    expect(rejected, wrong.lines.join('\n')).toHaveLength(1);
    expect(verified, right.lines.join('\n')).toHaveLength(1);
    expect(emittedMetrics(wrong.lines).filter((m) => m.name === 'SlackRequestsVerified')).toEqual([]);

    const alarm = alarmReading(synth, 'SlackRequestsRejected');
    expectReadsEmitted(alarm, rejected[0]!);
    expectReadsEmitted(alarm, verified[0]!);
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.OKActions).toEqual(alarm.props.AlarmActions);
    // Refused and none verified, over the same 15 minutes; a quiet night has no data and stays OK.
    expect(alarm.reads.map((r) => r.period)).toEqual([900, 900]);
    const expression = alarm.props.Metrics?.find((m) => m.Expression)?.Expression ?? '';
    expect(expression).toMatch(/AND/);
    expect(expression).toMatch(/== 0/);
    expect(alarm.props.TreatMissingData).toBe('notBreaching');
    expect(alarm.props.AlarmDescription).toContain('signing secret');
    expect(alarm.props.AlarmDescription).toContain('rotat');
  });

  it('does not count a request without Slack’s headers (a scanner) as a refused Slack request', async () => {
    const { app, lines } = deployedWebhook(SIGNING_SECRET);
    const res = await app.request(
      new Request('http://localhost/slack/commands', { method: 'POST', body: commandBody({ text: 'help' }) }),
    );
    expect(res.status).toBe(401);
    expect(emittedMetrics(lines).filter((m) => m.name === 'SlackRequestsRejected')).toEqual([]);
  });
});
