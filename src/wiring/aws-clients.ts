/**
 * The AWS SDK clients' settings from a function's environment (the webhook's attempts among them),
 * and the one extra SQS read the webhook makes (`status`'s queue depth). Split from from-env.ts,
 * which wires them.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { integerEnv, optionalEnv } from '../config/env.js';

type Env = Record<string, string | undefined>;

/**
 * Region, and for an emulator its endpoint and credentials, from `env` rather than from the
 * process: the local stack and tests hand each function its own environment. On Lambda `env` is
 * the process's, no endpoint is set, and the SDK's own credential chain stays in charge.
 */
export function awsClientConfig(env: Env, service: 'SQS' | 'DYNAMODB' | 'SECRETS_MANAGER') {
  const region = optionalEnv('AWS_REGION', env);
  const endpoint = optionalEnv(`AWS_ENDPOINT_URL_${service}`, env);
  const accessKeyId = optionalEnv('AWS_ACCESS_KEY_ID', env);
  const secretAccessKey = optionalEnv('AWS_SECRET_ACCESS_KEY', env);
  return {
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(endpoint && accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  };
}

/** The webhook's attempts per AWS call: two fit Slack's 3-s answer (0.5 s to connect, 1 s a request, a backoff). */
const WEBHOOK_AWS_ATTEMPTS = 2;

/**
 * The webhook sets its attempts itself (an SDK client's own `maxAttempts` wins over the SDK's
 * `AWS_MAX_ATTEMPTS`), so `AWS_MAX_ATTEMPTS` may lower them but never raise them past Slack's window.
 * The worker and the sweeper leave the variable to the SDK.
 */
export function webhookAwsAttempts(env: Env): number {
  return Math.min(
    WEBHOOK_AWS_ATTEMPTS,
    integerEnv('AWS_MAX_ATTEMPTS', WEBHOOK_AWS_ATTEMPTS, env, { min: 1 }),
  );
}

/**
 * `status`'s queue depth: one GetQueueAttributes call (SQS's approximate counts). Messages in
 * flight (a worker on them, a retry waiting out the visibility timeout, a 429 backing off for up
 * to 15 minutes) and delayed ones count too: they are not done, and people read 0 as "the queue
 * is empty, safe to deploy" (README, Upgrading). The same sum as the local stack's depth.
 */
const DEPTH_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;

export function sqsQueueDepth(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
): () => Promise<number | undefined> {
  return async () => {
    const out = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...DEPTH_ATTRIBUTES] }),
    );
    const counts = DEPTH_ATTRIBUTES.map((name) => Number(out.Attributes?.[name]));
    // A missing or unreadable count makes the depth unknown, never a smaller number.
    return counts.every(Number.isFinite) ? counts.reduce((a, b) => a + b, 0) : undefined;
  };
}
