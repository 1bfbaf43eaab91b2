/**
 * Building the webhook's dependencies from the environment, once per container (cold start):
 * the policy file (the one the bundle was built with is trusted by its digest; any other is
 * validated, and an invalid one fails the init with its zod path), secrets, the Console API
 * client, the actions queue, the state table and Slack replies. Read once, at the edge.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError, optionalEnv, requireEnv } from '../config/env.js';
import { createConsoleClient } from '../console/index.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { loadPolicyFile } from '../policy/load.js';
import { secretsFromEnvironment } from '../secrets/secrets.js';
import { postToSlack, replyOriginsFromEnv } from '../slack/post.js';
import { readPause, writePause } from '../state/pause.js';
import type { StateTable } from '../state/table.js';
import { writeVeto } from '../state/veto.js';
import { lazyClient } from '../util/lazy-client.js';
import type { WebhookDeps } from './deps.js';

type Env = Record<string, string | undefined>;

/** Reads and enqueues share one 2.5 s budget; each Console API attempt gets at most this much. */
const CONSOLE_ATTEMPT_TIMEOUT_MS = 2_000;
const SLACK_POST_TIMEOUT_MS = 1_500;

/** `status`'s queue depth: one GetQueueAttributes call (SQS's approximate count). */
export function sqsQueueDepth(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
): () => Promise<number | undefined> {
  return async () => {
    const out = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    const depth = Number(out.Attributes?.ApproximateNumberOfMessages);
    return Number.isFinite(depth) ? depth : undefined;
  };
}

export function webhookDepsFromEnv(env: Env = process.env, logger?: Logger): WebhookDeps {
  const log = logger ?? createLogger({ service: 'webhook' });
  const policy = loadPolicyFile(optionalEnv('AUTOPILOT_POLICY', env) ?? 'policy.json');
  if (!optionalEnv('AUTOPILOT_SECRET_ID', env) && !optionalEnv('SLACK_SIGNING_SECRET', env)) {
    throw new ConfigError(
      'set AUTOPILOT_SECRET_ID (Lambda) or SLACK_SIGNING_SECRET (local) to verify Slack requests',
    );
  }
  const secrets = secretsFromEnvironment(env);
  const queueUrl = requireEnv('ACTIONS_QUEUE_URL', env);
  // The AWS clients are built on first use, not here: most requests need neither (cold start).
  const table: StateTable = {
    client: lazyClient(
      () =>
        new DynamoDBClient({
          maxAttempts: 2,
          requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
        }),
    ),
    tableName: requireEnv('STATE_TABLE_NAME', env),
  };
  // Bounded so a stuck connection gives up on its own; the request waits at most 2.5 s anyway.
  const sqs = lazyClient(
    () =>
      new SQSClient({
        maxAttempts: 2,
        requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
      }),
  );
  const consoleClient = createConsoleClient({
    baseUrl: requireEnv('CONSOLE_API_BASE_URL', env),
    apiKey: async () => (await secrets.get()).consoleApiKey,
    timeoutMs: CONSOLE_ATTEMPT_TIMEOUT_MS,
    maxRetries: 1,
    // The webhook never mutates the Console API: the worker does, with the budget.
    mutationBudget: false,
    // No client logger: the request's own log line is the only one (its outcome says what happened).
  });
  const allowedOrigins = replyOriginsFromEnv(optionalEnv('SLACK_REPLY_ORIGINS', env));
  return {
    policy,
    secrets,
    console: consoleClient,
    sqs,
    queueUrl,
    pause: { read: () => readPause(table), write: (change) => writePause(table, change) },
    writeVeto: (key, veto) => writeVeto(table, key, veto),
    postReply: (url, message) =>
      postToSlack(url, message, { allowedOrigins, timeoutMs: SLACK_POST_TIMEOUT_MS }),
    queueDepth: sqsQueueDepth(sqs, queueUrl),
    logger: log,
  };
}
