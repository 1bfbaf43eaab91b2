/**
 * The SQS → Lambda event source mapping, emulated: long-polls the queue and invokes an SQS
 * handler with the event the Lambda service would build. What AWS does, this does:
 * - batches of up to `batchSize` (≤ 10) records with the real record shape (attributes,
 *   message attributes, md5s, `eventSourceARN`, `awsRegion`);
 * - `reportBatchItemFailures`: records not listed in `batchItemFailures` are deleted, listed
 *   ones stay and reappear after the visibility timeout; a response naming an id that is not
 *   in the batch, an invocation that throws, or one that outruns the function timeout leaves
 *   the whole batch;
 * - `maxReceiveCount` → DLQ is the queue's redrive policy, which fauxqs applies on receive.
 * In-process a timed-out handler cannot be killed: its batch is left, and its promise is
 * still awaited by `stop()` so that shutdown never cuts it in half. A handler that must stop
 * acting at its timeout, as on Lambda, fences its own clients (the chaos worker: chaos-timeout.ts);
 * and a queue whose visibility timeout is shorter than `timeoutMs` hands a message to a second
 * invocation while the first may still run, which deployed (visibility 6 × the timeout) never happens.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import type { Logger } from '../observability/logger.js';
import { createLambdaContext } from './lambda-context.js';

// biome-ignore lint/suspicious/noConfusingVoidType: Lambda handlers may return nothing (= all succeeded).
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface EventSourceOptions {
  sqs: SQSClient;
  queueUrl: string;
  handler: SqsHandler;
  /** Records per invocation, 1–10 (the standard-queue maximum without a batching window). */
  batchSize?: number;
  /** Long-poll wait, 0–20 s. */
  waitTimeSeconds?: number;
  /** Parallel pollers, like the mapping's `maxConcurrency`. */
  concurrency?: number;
  functionName?: string;
  /** The function timeout; an invocation running longer counts as failed. */
  timeoutMs?: number;
  region?: string;
  logger?: Logger;
  /** Called after every invocation (tests, chaos, the demo's progress). */
  onBatch?: (outcome: BatchOutcome) => void;
}

export interface BatchOutcome {
  messageIds: string[];
  deleted: string[];
  /** Left on the queue: reported failures, or the whole batch after a throw or timeout. */
  left: string[];
  error?: string;
}

export interface EventSource {
  start(): void;
  /** Stops polling, waits for in-flight invocations, resolves when idle. */
  stop(): Promise<void>;
  /** One receive + invoke cycle (tests). Resolves undefined when the queue was empty. */
  pollOnce(waitTimeSeconds?: number): Promise<BatchOutcome | undefined>;
  readonly stats: { batches: number; records: number; deleted: number; left: number; errors: number };
  readonly batchSize: number;
  readonly concurrency: number;
}

/** Messages still in a queue: visible, in flight and delayed (zero means fully drained). */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const a = out.Attributes ?? {};
  return (
    Number(a.ApproximateNumberOfMessages ?? 0) +
    Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(a.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

/** Converts an SQS API message into the record shape Lambda delivers. */
export function toSqsRecord(message: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      stringListValues: [],
      binaryListValues: [],
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined
        ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
        : {}),
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ...attributes,
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createEventSource(options: EventSourceOptions): EventSource {
  const batchSize = Math.max(1, Math.min(10, options.batchSize ?? 10));
  const waitTimeSeconds = Math.max(0, Math.min(20, options.waitTimeSeconds ?? 20));
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const functionName = options.functionName ?? 'autopilot-worker';
  const timeoutMs = options.timeoutMs ?? 30_000;
  const region = options.region ?? (process.env.AWS_REGION || 'us-east-1');
  const log = options.logger;
  const stats = { batches: 0, records: 0, deleted: 0, left: 0, errors: 0 };

  let arn: Promise<string> | undefined;
  const queueArn = () => {
    arn ??= options.sqs
      .send(new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ['QueueArn'] }))
      .then((out) => out.Attributes?.QueueArn ?? `arn:aws:sqs:${region}:000000000000:local`);
    return arn;
  };

  let running = false;
  let loops: Promise<void>[] = [];
  const receiving = new Set<AbortController>();
  const inFlight = new Set<Promise<unknown>>();

  async function invoke(messages: Message[]): Promise<BatchOutcome> {
    const sourceArn = await queueArn();
    const records = messages.map((m) => toSqsRecord(m, sourceArn, region));
    const ids = records.map((r) => r.messageId);
    const context = createLambdaContext({ functionName, timeoutMs, region });
    stats.batches += 1;
    stats.records += records.length;

    const run = options.handler({ Records: records }, context);
    inFlight.add(run);
    run.then(
      () => inFlight.delete(run),
      () => inFlight.delete(run),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Task timed out after ${timeoutMs} ms`)), timeoutMs);
    });

    let failedIds: Set<string>;
    let error: string | undefined;
    try {
      const response = await Promise.race([run, timeout]);
      const failures = response?.batchItemFailures ?? [];
      const known = new Set(ids);
      const invalid = failures.find((f) => !f.itemIdentifier || !known.has(f.itemIdentifier));
      if (invalid) {
        // Lambda treats an unknown or empty itemIdentifier as a failure of the whole batch.
        error = `batchItemFailures names an item that is not in the batch: ${JSON.stringify(invalid.itemIdentifier)}`;
        failedIds = known;
      } else {
        failedIds = new Set(failures.map((f) => f.itemIdentifier));
      }
    } catch (thrown) {
      error = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
      failedIds = new Set(ids);
    } finally {
      clearTimeout(timer);
    }
    if (error) {
      stats.errors += 1;
      log?.warn('invocation failed; the batch stays on the queue', {
        functionName,
        records: ids.length,
        error,
      });
    }

    const toDelete = records.filter((r) => !failedIds.has(r.messageId));
    const deleted: string[] = [];
    for (let i = 0; i < toDelete.length; i += 10) {
      const chunk = toDelete.slice(i, i + 10);
      try {
        const out = await options.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: options.queueUrl,
            Entries: chunk.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
          }),
        );
        for (const ok of out.Successful ?? []) {
          const record = chunk[Number(ok.Id)];
          if (record) deleted.push(record.messageId);
        }
        if (out.Failed?.length) log?.warn('some deletes failed', { failed: out.Failed.length });
      } catch (thrown) {
        log?.warn('delete failed; those records will be delivered again', { error: String(thrown) });
      }
    }
    const left = ids.filter((id) => failedIds.has(id));
    stats.deleted += deleted.length;
    stats.left += left.length;
    const outcome: BatchOutcome = { messageIds: ids, deleted, left, ...(error ? { error } : {}) };
    options.onBatch?.(outcome);
    return outcome;
  }

  async function receive(wait: number, signal?: AbortSignal): Promise<Message[]> {
    const out = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: batchSize,
        WaitTimeSeconds: wait,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      signal ? { abortSignal: signal } : {},
    );
    return out.Messages ?? [];
  }

  async function loop(): Promise<void> {
    let failures = 0;
    while (running) {
      const controller = new AbortController();
      receiving.add(controller);
      let messages: Message[];
      try {
        messages = await receive(waitTimeSeconds, controller.signal);
        failures = 0;
      } catch (thrown) {
        if (!running) break;
        failures += 1;
        log?.warn('receive failed; retrying', { error: String(thrown) });
        await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)));
        continue;
      } finally {
        receiving.delete(controller);
      }
      if (messages.length > 0) await invoke(messages);
    }
  }

  return {
    stats,
    batchSize,
    concurrency,
    start() {
      if (running) return;
      running = true;
      loops = Array.from({ length: concurrency }, () => loop());
    },
    async stop() {
      running = false;
      for (const controller of receiving) controller.abort();
      await Promise.allSettled(loops);
      await Promise.allSettled([...inFlight]);
      loops = [];
    },
    async pollOnce(wait = 0) {
      const messages = await receive(wait);
      return messages.length > 0 ? invoke(messages) : undefined;
    },
  };
}
