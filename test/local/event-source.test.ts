import { PurgeQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createEventSource, type SqsHandler } from '../../src/local/event-source.js';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startEmulators({ visibilityTimeoutSeconds: 1, maxReceiveCount: 2 });
});
afterAll(async () => {
  await emulators?.stop();
});
beforeEach(async () => {
  await emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: emulators.queueUrl }));
  await emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: emulators.dlqUrl }));
});

async function send(...bodies: string[]): Promise<void> {
  for (const body of bodies) {
    await emulators.sqs.send(
      new SendMessageCommand({
        QueueUrl: emulators.queueUrl,
        MessageBody: body,
        MessageAttributes: { action: { DataType: 'String', StringValue: 'approve_phase' } },
      }),
    );
  }
}

/** Polls until `count` records have been seen by the handler (bounded). */
async function pollUntil(source: ReturnType<typeof createEventSource>, done: () => boolean, max = 20) {
  for (let i = 0; i < max && !done(); i++) await source.pollOnce(1);
}

describe('the emulated SQS event source mapping', () => {
  it('delivers records in the shape Lambda builds', async () => {
    await send('{"a":1}');
    let event: SQSEvent | undefined;
    const source = createEventSource({
      sqs: emulators.sqs,
      queueUrl: emulators.queueUrl,
      handler: async (e) => {
        event = e;
      },
    });
    await pollUntil(source, () => event !== undefined);
    const record = event?.Records[0];
    expect(record).toMatchObject({
      body: '{"a":1}',
      eventSource: 'aws:sqs',
      eventSourceARN: expect.stringMatching(/^arn:aws:sqs:.*:autopilot-actions$/),
      awsRegion: expect.any(String),
      md5OfBody: expect.stringMatching(/^[0-9a-f]{32}$/),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: expect.stringMatching(/^\d+$/) },
      messageAttributes: {
        action: {
          dataType: 'String',
          stringValue: 'approve_phase',
          stringListValues: [],
          binaryListValues: [],
        },
      },
    });
    expect(record?.receiptHandle).not.toBe('');
  });

  it('deletes acknowledged records and redelivers reported failures after the visibility timeout', async () => {
    await send('ok', 'fail');
    const seen: Array<{ body: string; receives: string }> = [];
    const handler: SqsHandler = async (e) => {
      for (const r of e.Records) seen.push({ body: r.body, receives: r.attributes.ApproximateReceiveCount });
      return {
        batchItemFailures: e.Records.filter((r) => r.body === 'fail').map((r) => ({
          itemIdentifier: r.messageId,
        })),
      };
    };
    const source = createEventSource({ sqs: emulators.sqs, queueUrl: emulators.queueUrl, handler });
    await pollUntil(
      source,
      () => seen.filter((s) => s.body === 'fail').length >= 2 && seen.some((s) => s.body === 'ok'),
    );
    expect(seen.filter((s) => s.body === 'ok')).toEqual([{ body: 'ok', receives: '1' }]);
    expect(seen.filter((s) => s.body === 'fail').map((s) => s.receives)).toEqual(['1', '2']);
  });

  it('leaves the whole batch when the invocation throws, and SQS moves it to the DLQ after maxReceiveCount', async () => {
    await send('poison');
    let calls = 0;
    const source = createEventSource({
      sqs: emulators.sqs,
      queueUrl: emulators.queueUrl,
      handler: async () => {
        calls += 1;
        throw new Error('crash');
      },
    });
    for (let i = 0; i < 8 && calls < 2; i++) await source.pollOnce(1);
    expect(calls).toBe(2);
    expect(source.stats.errors).toBe(2);
    // The third receive finds the message over its maxReceiveCount: fauxqs redrives it.
    const dlq = await (async () => {
      for (let i = 0; i < 5; i++) {
        await source.pollOnce(1);
        const out = await emulators.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: emulators.dlqUrl, WaitTimeSeconds: 1 }),
        );
        if (out.Messages?.length) return out.Messages;
      }
      return [];
    })();
    expect(dlq.map((m) => m.Body)).toEqual(['poison']);
    expect(calls).toBe(2);
  });

  it('treats a failure naming an id outside the batch as a failure of the whole batch', async () => {
    await send('x');
    const outcomes: string[][] = [];
    const source = createEventSource({
      sqs: emulators.sqs,
      queueUrl: emulators.queueUrl,
      handler: async () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] }),
      onBatch: (o) => outcomes.push(o.left),
    });
    await pollUntil(source, () => outcomes.length > 0);
    expect(outcomes[0]).toHaveLength(1);
    expect(source.stats.deleted).toBe(0);
  });

  it('counts an invocation that outruns the function timeout as failed, and leaves its batch', async () => {
    await send('slow');
    const outcomes: Array<{ left: number; error?: string }> = [];
    // The handler cannot finish before the batch's outcome is recorded: only the timeout can end it.
    let release!: () => void;
    const neverBeforeOutcome = new Promise<void>((resolve) => {
      release = resolve;
    });
    const source = createEventSource({
      sqs: emulators.sqs,
      queueUrl: emulators.queueUrl,
      timeoutMs: 50,
      handler: async (_event, context) => {
        expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(50);
        await neverBeforeOutcome;
      },
      onBatch: (o) => {
        outcomes.push({ left: o.left.length, ...(o.error ? { error: o.error } : {}) });
        release();
      },
    });
    await pollUntil(source, () => outcomes.length > 0);
    await source.stop();
    expect(outcomes[0]).toEqual({ left: 1, error: expect.stringContaining('timed out') });
  });

  it('waits for the in-flight batch when it stops', async () => {
    await send('slow');
    const order: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const source = createEventSource({
      sqs: emulators.sqs,
      queueUrl: emulators.queueUrl,
      waitTimeSeconds: 1,
      handler: async () => {
        started();
        await released; // held until stop() has been asked for
        order.push('handler finished');
      },
    });
    source.start();
    await running;
    const stopping = source.stop().then(() => order.push('stopped'));
    setImmediate(release);
    await stopping;
    expect(order).toEqual(['handler finished', 'stopped']);
    expect(source.stats.deleted).toBe(1);
  });
});
