/**
 * `dlq delete` takes its queue from `--dlq-url` (or DLQ_URL, or --local) only, and its usage says
 * so; it used to accept `--queue-url` too and ignore it. An operator who named the queue to delete
 * from with `--queue-url` had the messages deleted, for good, from whatever DLQ_URL named in that
 * shell. It is now a usage error (exit 2) and nothing is read or deleted; against fauxqs.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { receiveAll, release } from '../../src/queue/dead-letters.js';
import { captureIo } from '../helpers/cli-io.js';

let emulators: Emulators;
beforeAll(async () => {
  emulators = await startEmulators();
});
afterAll(async () => {
  await emulators?.stop();
});

it('refuses --queue-url as a usage error and deletes nothing', async () => {
  const sent = await emulators.sqs.send(
    new SendMessageCommand({
      QueueUrl: emulators.dlqUrl,
      MessageBody: JSON.stringify({ version: 1, action: 'approve_phase', requestId: 'forged-1' }),
    }),
  );
  const run = captureIo({
    env: { DLQ_URL: emulators.dlqUrl, AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint },
  });
  const code = await runCli(
    ['dlq', 'delete', sent.MessageId as string, '--yes', '--queue-url', 'http://127.0.0.1:9/other-dlq'],
    run.io,
  );

  expect(code, run.err()).toBe(2);
  expect(run.err()).toContain('--queue-url');
  const letters = await receiveAll(emulators.sqs, emulators.dlqUrl, { holdSeconds: 5 });
  await release(emulators.sqs, emulators.dlqUrl, letters);
  expect(letters.map((l) => l.messageId)).toEqual([sent.MessageId]);
});
