/**
 * The AWS SDK clients' settings from a function's environment, and the one extra SQS read the
 * webhook makes (`status`'s queue depth). Split from from-env.ts, which wires them.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { optionalEnv } from '../config/env.js';

type Env = Record<string, string | undefined>;

/**
 * Region, and for an emulator its endpoint and credentials, from `env` rather than from the
 * process: the local stack and tests hand each function its own environment. On Lambda `env` is
 * the process's, no endpoint is set, and the SDK's own credential chain stays in charge.
 */
export function awsClientConfig(env: Env, service: 'SQS' | 'DYNAMODB') {
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
