/**
 * The sweeper's dependencies from the environment, read once per container: the Console API
 * client (key from Secrets Manager or `CONSOLE_API_KEY`), the SQS and DynamoDB clients (which
 * honour `AWS_ENDPOINT_URL_*` for the local stack), the queue and table names, and the extra
 * Slack origins allowed locally. `SWEEPER_PAGE_SIZE` overrides the page size (default 1000,
 * the API applies less when it caps `limit`).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { integerEnv, optionalEnv, requireEnv } from '../config/env.js';
import { createConsoleClient } from '../console/index.js';
import type { Policy } from '../policy/schema.js';
import { secretsFromEnvironment } from '../secrets/secrets.js';
import { replyOriginsFromEnv } from '../slack/post.js';
import { lazyClient } from '../util/lazy-client.js';
import type { SweeperDeps } from './sweeper.js';

export function sweeperDepsFromEnv(
  policy: Policy,
  env: Record<string, string | undefined> = process.env,
): SweeperDeps {
  const secrets = secretsFromEnvironment(env);
  const client = createConsoleClient({
    baseUrl: requireEnv('CONSOLE_API_BASE_URL', env),
    apiKey: async () => (await secrets.get()).consoleApiKey,
  });
  return {
    policy,
    events: client.events,
    // Built on first use rather than at init: it keeps ~10 ms off the cold start (util/lazy-client).
    table: {
      client: lazyClient(() => new DynamoDBClient({})),
      tableName: requireEnv('STATE_TABLE_NAME', env),
    },
    sqs: lazyClient(() => new SQSClient({})),
    queueUrl: requireEnv('ACTIONS_QUEUE_URL', env),
    slackAllowedOrigins: replyOriginsFromEnv(optionalEnv('SLACK_REPLY_ORIGINS', env)),
    pageSize: integerEnv('SWEEPER_PAGE_SIZE', 1000, env) || 1000,
  };
}
