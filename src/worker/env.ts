/**
 * The worker's dependencies from the environment, read once per container (at cold start):
 * queue URLs, table, the Console API client with its per-container mutation budget
 * (`MUTATION_LIMIT_10S` / `MUTATION_LIMIT_15MIN`: the platform's limits divided by the event
 * source's maxConcurrency), and the API key from Secrets Manager or the environment.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { integerEnv, optionalEnv, requireEnv } from '../config/env.js';
import { createConsoleClient } from '../console/index.js';
import { createLogger } from '../observability/logger.js';
import type { Policy } from '../policy/schema.js';
import { secretsFromEnvironment } from '../secrets/secrets.js';
import { replyOriginsFromEnv } from '../slack/post.js';
import { lazyClient } from '../util/lazy-client.js';
import type { WorkerDeps } from './worker.js';

type Env = Record<string, string | undefined>;

/** The mutation budget of one container, from the environment (defaults: the platform's limits). */
export function mutationLimitsFromEnv(env: Env = process.env): Array<{ max: number; perMs: number }> {
  return [
    { max: Math.max(1, integerEnv('MUTATION_LIMIT_10S', 100, env)), perMs: 10_000 },
    { max: Math.max(1, integerEnv('MUTATION_LIMIT_15MIN', 900, env)), perMs: 15 * 60_000 },
  ];
}

export function workerDepsFromEnv(policy: Policy, env: Env = process.env): WorkerDeps {
  const secrets = secretsFromEnvironment(env);
  const client = createConsoleClient({
    baseUrl: requireEnv('CONSOLE_API_BASE_URL', env),
    // After a 401 the key may have been rotated: re-read the secret (rate-limited) before retrying.
    apiKey: async ({ afterUnauthorized }) => {
      if (afterUnauthorized) await secrets.refresh();
      return (await secrets.get()).consoleApiKey;
    },
    mutationBudget: { limits: mutationLimitsFromEnv(env) },
  });
  return {
    policy,
    client,
    // Endpoints come from AWS_ENDPOINT_URL_SQS / _DYNAMODB when set (local stack, tests). The
    // clients are built on the first message rather than at init (cold start; util/lazy-client).
    sqs: lazyClient(() => new SQSClient({})),
    table: {
      client: lazyClient(() => new DynamoDBClient({})),
      tableName: requireEnv('STATE_TABLE_NAME', env),
    },
    queueUrl: requireEnv('ACTIONS_QUEUE_URL', env),
    dlqUrl: requireEnv('DLQ_URL', env),
    logger: createLogger({ service: 'worker' }),
    slack: { allowedOrigins: replyOriginsFromEnv(optionalEnv('SLACK_REPLY_ORIGINS', env)) },
  };
}
