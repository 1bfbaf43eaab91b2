/**
 * Lambda-shaped fixtures for tests: a context with a controllable remaining time, and SQS events
 * built from messages really received from the SQS emulator (fauxqs), in exactly the shape the
 * Lambda event source mapping delivers them. Plus a poller that drives an SQS handler the way the
 * event source does (the local stack's emulation): receive, invoke, delete what was acknowledged, let
 * failures reappear.
 */
import {
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { createEventSource, queueDepth, type SqsHandler, toSqsRecord } from '../../src/local/event-source.js';
import { createLambdaContext } from '../../src/local/lambda-context.js';

/** A Lambda context whose `getRemainingTimeInMillis` counts down from `timeoutMs` (the local stack's own). */
export function lambdaContext(options: { timeoutMs?: number; functionName?: string } = {}): Context {
  return createLambdaContext({
    functionName: options.functionName ?? 'autopilot-worker',
    timeoutMs: options.timeoutMs ?? 30_000,
  });
}

export interface QueueRef {
  sqs: SQSClient;
  queueUrl: string;
}

/** `arn:aws:sqs:<region>:<account>:<name>` as the emulator reports it. */
export async function queueArn(ref: QueueRef): Promise<string> {
  const out = await ref.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: ref.queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return out.Attributes?.QueueArn ?? `arn:aws:sqs:us-east-1:000000000000:${ref.queueUrl.split('/').pop()}`;
}

/** One received SQS message as a Lambda `SQSRecord` (the local event source's conversion). */
export function sqsRecordFromMessage(
  message: Message,
  eventSourceARN: string,
  awsRegion = 'us-east-1',
): SQSRecord {
  return toSqsRecord(message, eventSourceARN, awsRegion);
}

/** Receives up to `max` messages and wraps them as one SQS event (possibly with no records). */
export async function receiveEvent(
  ref: QueueRef & { arn: string },
  options: { max?: number; waitSeconds?: number; visibilityTimeout?: number } = {},
): Promise<SQSEvent> {
  const out = await ref.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: ref.queueUrl,
      MaxNumberOfMessages: options.max ?? 10,
      WaitTimeSeconds: options.waitSeconds ?? 0,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      ...(options.visibilityTimeout !== undefined ? { VisibilityTimeout: options.visibilityTimeout } : {}),
    }),
  );
  return { Records: (out.Messages ?? []).map((m) => sqsRecordFromMessage(m, ref.arn)) };
}

export type { SqsHandler };

/**
 * Polls like the event source mapping — the local stack's own emulation (src/local/event-source.ts):
 * `pollers` concurrent loops of receive → invoke → delete acknowledged, until `done()` holds and
 * the queue is empty, or `maxMs` passes (then it throws, so a test can never hang).
 */
export async function drive(
  ref: QueueRef,
  handler: SqsHandler,
  options: {
    pollers?: number;
    batchSize?: number;
    timeoutMs?: number;
    maxMs: number;
    done?: () => boolean | Promise<boolean>;
  },
): Promise<{ invocations: number; records: number; handlerMs: number; emptyPolls: number }> {
  let handlerMs = 0;
  const timed: SqsHandler = async (event, context) => {
    const t0 = Date.now();
    try {
      return await handler(event, context);
    } finally {
      handlerMs += Date.now() - t0;
    }
  };
  const source = createEventSource({
    sqs: ref.sqs,
    queueUrl: ref.queueUrl,
    handler: timed,
    batchSize: options.batchSize ?? 10,
    timeoutMs: options.timeoutMs ?? 30_000,
  });
  const started = Date.now();
  let emptyPolls = 0;
  let finished = false;
  const isFinished = async () => {
    if (finished) return true;
    if (options.done && !(await options.done())) return false;
    finished = (await queueDepth(ref.sqs, ref.queueUrl)) === 0;
    return finished;
  };
  const loop = async () => {
    while (!(await isFinished())) {
      if (Date.now() - started > options.maxMs)
        throw new Error(`queue not drained within ${options.maxMs} ms`);
      if (await source.pollOnce(0)) continue;
      emptyPolls++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await Promise.all(Array.from({ length: options.pollers ?? 1 }, loop));
  return { invocations: source.stats.batches, records: source.stats.records, handlerMs, emptyPolls };
}
