/**
 * The webhook wired the deployed way (webhookDepsFromEnv) on the emulators, for the tests of the
 * alarms its failures page through: its metric lines and its request lines (parsed) are kept for
 * the test to read.
 */
import type { Emulators } from '../../src/local/emulators.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import { webhookDepsFromEnv } from '../../src/wiring/from-env.js';
import { SIGNING_SECRET } from '../helpers/slack-requests.js';
import { TEST_POLICY } from './harness.js';

/** Secrets read from the environment, as a local run reads them. */
export const SECRETS_IN_ENV: Record<string, string> = {
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
  CONSOLE_API_KEY: 'unused-key',
};

export interface DeployedWebhookOptions {
  /** Variables set over the emulators' ones: a table that does not exist, an SQS endpoint that hangs. */
  env?: Record<string, string>;
  /** The variables naming its secrets; `SECRETS_IN_ENV` unless given (e.g. Secrets Manager ids). */
  secrets?: Record<string, string>;
  /** A fixed time for its clock and its metrics; the real time unless given. */
  now?: number;
}

export function deployedWebhookOn(emulators: Emulators, options: DeployedWebhookOptions = {}) {
  const { now } = options;
  const lines: string[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const deps = webhookDepsFromEnv(
    {
      ...(options.secrets ?? SECRETS_IN_ENV),
      AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
      ACTIONS_QUEUE_URL: emulators.queueUrl,
      STATE_TABLE_NAME: emulators.tableName,
      ...options.env,
    },
    {
      policy: parsePolicy(TEST_POLICY),
      ...(now === undefined ? {} : { clock: () => now }),
      logger: createLogger({
        service: 'webhook',
        sink: (line) => requests.push(JSON.parse(line) as Record<string, unknown>),
      }),
      metrics: createMetrics({
        service: 'webhook',
        ...(now === undefined ? {} : { now: () => now }),
        sink: (line) => lines.push(line),
      }),
    },
  );
  return { app: createWebhookApp(deps), lines, requests };
}
