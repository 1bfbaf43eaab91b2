/**
 * A webhook that cannot write its state table (the table deleted or renamed, the role's
 * dynamodb:PutItem taken away, a KMS key policy) answers `pause` and `resume` "Could not pause:
 * the state table did not answer" (outcome `state_unreachable`): the person sees an error, and
 * automation they meant to stop goes on. Nothing counted it (answered 200, no 5xx), so no alarm
 * could page an operator.
 *
 * The webhook wired the deployed way (webhookDepsFromEnv) on the emulators, its STATE_TABLE_NAME
 * a table that does not exist (DynamoDB answers ResourceNotFoundException); real signed Slack
 * requests; the alarms from the synthesized stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import { webhookDepsFromEnv } from '../../src/wiring/from-env.js';
import { commandBody, SIGNING_SECRET, signedRequest } from '../helpers/slack-requests.js';
import { alarmsOf, emittedMetrics, expectReadsEmitted } from '../infra/alarm-reading.js';
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

function deployedWebhook() {
  const lines: string[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const deps = webhookDepsFromEnv(
    {
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
      AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      CONSOLE_API_KEY: 'unused-key',
      CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
      ACTIONS_QUEUE_URL: emulators.queueUrl,
      // Gone: every read and write of it is refused.
      STATE_TABLE_NAME: `${emulators.tableName}-deleted`,
    },
    {
      policy: parsePolicy(TEST_POLICY),
      logger: createLogger({
        service: 'webhook',
        sink: (line) => requests.push(JSON.parse(line) as Record<string, unknown>),
      }),
      metrics: createMetrics({ service: 'webhook', sink: (line) => lines.push(line) }),
    },
  );
  return { app: createWebhookApp(deps), lines, requests };
}

describe('a webhook that cannot write its state table', () => {
  for (const text of ['pause incident 42', 'resume']) {
    it(`counts a failed "${text.split(' ')[0]}" under a metric a paging alarm reads`, async () => {
      const { app, lines, requests } = deployedWebhook();
      const res = await app.request(signedRequest('/slack/commands', commandBody({ text, userId: 'U0OPS' })));
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('the state table did not answer');
      expect(requests.at(-1)).toMatchObject({ outcome: 'state_unreachable' });

      // Every verified Slack request is counted too (WebhookSigningSecretWrong reads it): not this failure.
      const emitted = emittedMetrics(lines).filter(
        (m) => m.dimensions.Service === 'webhook' && m.name !== 'SlackRequestsVerified',
      );
      const paging = alarmsOf(synth).filter(
        (alarm) =>
          (alarm.props.AlarmActions ?? []).length > 0 &&
          emitted.some((m) => alarm.reads.some((r) => r.metricName === m.name)),
      );
      expect(
        paging.map((a) => a.id),
        `webhook metrics for a failed ${text}: ${JSON.stringify(emitted.map((m) => m.name))}`,
      ).toHaveLength(1);
      const counted = emitted.find((m) => paging[0]!.reads.some((r) => r.metricName === m.name))!;
      expectReadsEmitted(paging[0]!, counted);
      expect(counted.value).toBe(1);
      expect(paging[0]!.props.AlarmDescription).toContain('state_unreachable');
    });
  }
});
