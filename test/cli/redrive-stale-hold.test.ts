/**
 * `dlq redrive` holds each message again before sending it back: a long redrive outlasted the
 * hold of its first read (120 s), and a message another reader had received meanwhile was still
 * sent back, and its stale-handle delete "succeeded", so the request reached the queue twice.
 */
import { PurgeQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { receiveAll, redrive, release } from '../../src/queue/dead-letters.js';

let emulators: Emulators;
beforeAll(async () => {
  emulators = await startEmulators();
});
afterAll(async () => {
  await emulators?.stop();
});

it('does not send back a message whose hold ended and that another reader received meanwhile', async () => {
  const { sqs, dlqUrl, queueUrl } = emulators;
  await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
  await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: '{"requestId":"r-1"}' }));
  await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: '{"requestId":"r-2"}' }));
  const letters = await receiveAll(sqs, dlqUrl, { holdSeconds: 60 });
  expect(letters).toHaveLength(2);
  // The first one's hold ends (as 120 s do, late in a long redrive) ...
  await release(sqs, dlqUrl, letters.slice(0, 1));
  // ... and another reader (a second operator's `dlq list`) takes the first meanwhile.
  const other = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 1, VisibilityTimeout: 30 }),
  );
  const taken = other.Messages?.[0]?.MessageId;
  const result = await redrive(sqs, { dlqUrl, queueUrl }, letters);
  expect(taken).toBe(letters[0]?.messageId);
  expect(result.failed).toEqual([
    {
      messageId: taken,
      error: 'no longer held (its hold ended, or another reader has it): not sent; run the redrive again',
    },
  ]);
  expect(result.moved.map((m) => m.messageId)).toEqual(
    letters.map((l) => l.messageId).filter((id) => id !== taken),
  );
  const sentBack = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  expect(sentBack.Messages).toHaveLength(1);
});

it('reads the DLQ to its end even when the hold runs out during the read (the same messages come again)', async () => {
  const { sqs, dlqUrl } = emulators;
  await sqs.send(new PurgeQueueCommand({ QueueUrl: dlqUrl }));
  await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: '{"requestId":"r-3"}' }));
  const letters = await receiveAll(sqs, dlqUrl, { holdSeconds: 0 });
  expect(letters.map((l) => JSON.parse(l.body).requestId)).toEqual(['r-3']);
});
