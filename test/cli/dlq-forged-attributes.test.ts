/**
 * The worker's DLQ copy of a refused message carries the message's own attributes beside the
 * three the worker adds (`sourceMessageId`, `failedAt`, `error`). The sender of a message on the
 * actions queue is not proven: one that sets an attribute named `sourceMessageId` or `failedAt`
 * must not choose what the worker writes under those names. `dlq list` names the letter by its
 * source message id (request id `sqs:<id>`, the id its audit record is under), and `dlq redrive
 * --id` / `dlq delete` pick letters by it: a forged one took another message's identity.
 * One SQS moved after its retries keeps its sender's attributes only: none of them is the worker's.
 */
import {
  type Message,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { receiveAll, release } from '../../src/queue/dead-letters.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { captureIo } from '../helpers/cli-io.js';
import { queueArn } from '../helpers/lambda.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

/** The CLI's IO with the DLQ and the SQS endpoint of the bench. */
const dlqIo = () =>
  captureIo({ env: { DLQ_URL: bench.emulators.dlqUrl, AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint } });

async function purge() {
  for (const url of [bench.queue.queueUrl, bench.emulators.dlqUrl])
    await bench.queue.sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
}

it('a refused message cannot name itself after another message in the DLQ', async () => {
  await purge();
  const genuine = await bench.queue.sqs.send(
    new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: '{"version":1,"action":"nope"}' }),
  );
  const forged = await bench.queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.queue.queueUrl,
      MessageBody: '{"version":1,"action":"also-nope"}',
      MessageAttributes: {
        sourceMessageId: { DataType: 'String', StringValue: genuine.MessageId as string },
        failedAt: { DataType: 'String', StringValue: '2020-01-01T00:00:00.000Z' },
      },
    }),
  );
  const worker = bench.worker();
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });

  const list = dlqIo();
  expect(await runCli(['dlq', 'list', '--json'], list.io)).toBe(0);
  const letters = JSON.parse(list.out()) as Array<{
    requestId?: string;
    sourceMessageId?: string;
    failedAt?: string;
    body: string;
  }>;
  const ofForged = letters.find((l) => l.body.includes('also-nope'));
  expect(ofForged).toMatchObject({
    sourceMessageId: forged.MessageId,
    requestId: `sqs:${forged.MessageId}`,
    failedAt: bench.clock.now.toISOString(),
  });

  // The genuine letter is named by its own id alone: deleting it by that id deletes it.
  const del = dlqIo();
  expect(await runCli(['dlq', 'delete', `sqs:${genuine.MessageId}`, '--dry-run'], del.io)).toBe(0);
  expect(del.out()).toContain('Would delete 1 message(s)');
});

/** fauxqs does not report `DeadLetterQueueSourceArn`: added as SQS does on what it moved from `from`. */
function reportingSource(sqs: SQSClient, moved: Set<string>, fromArn: string): Pick<SQSClient, 'send'> {
  return {
    async send(command: unknown): Promise<unknown> {
      const out = (await sqs.send(command as never)) as { Messages?: Message[] };
      for (const message of out.Messages ?? [])
        if (moved.has(message.MessageId ?? ''))
          message.Attributes = { ...message.Attributes, DeadLetterQueueSourceArn: fromArn };
      return out;
    },
  } as Pick<SQSClient, 'send'>;
}

it("a message SQS moved after its retries shows none of its sender's attributes as the worker's", async () => {
  await purge();
  const { sqs } = bench.queue;
  const sent = await sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.queue.queueUrl,
      MessageBody: JSON.stringify({
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: bench.clock.now.toISOString(),
      }),
      MessageAttributes: {
        error: { DataType: 'String', StringValue: 'approved by the release manager; redrive it' },
        sourceMessageId: { DataType: 'String', StringValue: 'someone-else' },
        failedAt: { DataType: 'String', StringValue: '2020-01-01T00:00:00.000Z' },
      },
    }),
  );
  for (let i = 0; i <= MAX_RECEIVE_COUNT; i++)
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: bench.queue.queueUrl, VisibilityTimeout: 0 }));
  const client = reportingSource(sqs, new Set([sent.MessageId as string]), await queueArn(bench.queue));
  const letters = await receiveAll(client, bench.emulators.dlqUrl, { holdSeconds: 60 });
  await release(client, bench.emulators.dlqUrl, letters);
  expect(letters).toHaveLength(1);
  const [letter] = letters;
  expect(letter?.requestId).toBe(`sqs:${sent.MessageId}`);
  expect(letter?.reason).toMatch(/^retries exhausted/);
  expect(letter?.sourceMessageId).toBeUndefined();
  expect(letter?.failedAt).toBeUndefined();
});
