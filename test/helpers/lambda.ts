/**
 * Lambda-shaped fixtures for tests: a context with a controllable remaining time, and SQS events
 * built from messages really received from the SQS emulator (fauxqs), in exactly the shape the
 * Lambda event source mapping delivers them. Plus a poller that drives an SQS handler the way the
 * event source does: receive, invoke, delete what was acknowledged, let failures reappear.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { queueDepth, toSqsRecord } from '../../src/local/event-source.js';
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

/** Deletes the records the handler acknowledged (all but its batchItemFailures), as the event source does. */
export async function deleteAcknowledged(
  ref: QueueRef,
  event: SQSEvent,
  response: SQSBatchResponse | undefined,
) {
  const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  const acked = event.Records.filter((r) => !failed.has(r.messageId));
  for (let i = 0; i < acked.length; i += 10) {
    const chunk = acked.slice(i, i + 10);
    await ref.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: ref.queueUrl,
        Entries: chunk.map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
      }),
    );
  }
  return { acked: acked.length, failed: failed.size };
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/**
 * Polls like the event source mapping: `pollers` concurrent loops of receive → invoke → delete
 * acknowledged, until `done()` holds and the queue is empty, or `maxMs` passes (then it throws,
 * so a test can never hang).
 */
export async function drive(
  ref: QueueRef & { arn: string },
  handler: SqsHandler,
  options: {
    pollers?: number;
    batchSize?: number;
    timeoutMs?: number;
    maxMs: number;
    done?: () => boolean | Promise<boolean>;
  },
): Promise<{ invocations: number; records: number; handlerMs: number; emptyPolls: number }> {
  const started = Date.now();
  let invocations = 0;
  let records = 0;
  let handlerMs = 0;
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
      const event = await receiveEvent(ref, { max: options.batchSize ?? 10, waitSeconds: 0 });
      if (event.Records.length === 0) {
        emptyPolls++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      invocations++;
      records += event.Records.length;
      const t0 = Date.now();
      const response = await handler(event, lambdaContext({ timeoutMs: options.timeoutMs ?? 30_000 }));
      handlerMs += Date.now() - t0;
      await deleteAcknowledged(ref, event, response);
    }
  };
  await Promise.all(Array.from({ length: options.pollers ?? 1 }, loop));
  return { invocations, records, handlerMs, emptyPolls };
}
