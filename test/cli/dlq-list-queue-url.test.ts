/**
 * `dlq list` reads the queue `--dlq-url` (or DLQ_URL, or --local) names, and its usage says so;
 * it accepted `--queue-url` too and ignored it. An operator who named the queue to look at with
 * `--queue-url` was shown, with exit 0, the messages of whatever DLQ_URL named in that shell as if
 * they were that queue's. It is now a usage error (exit 2) and nothing is read, as for
 * `dlq delete`; against fauxqs.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { captureIo } from '../helpers/cli-io.js';

let emulators: Emulators;
beforeAll(async () => {
  emulators = await startEmulators();
});
afterAll(async () => {
  await emulators?.stop();
});

it('refuses --queue-url as a usage error rather than listing another queue', async () => {
  await emulators.sqs.send(
    new SendMessageCommand({
      QueueUrl: emulators.dlqUrl,
      MessageBody: JSON.stringify({ version: 1, action: 'approve_phase', requestId: 'in-dlq-url' }),
    }),
  );
  const run = captureIo({
    env: { DLQ_URL: emulators.dlqUrl, AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint },
  });
  const code = await runCli(['dlq', 'list', '--queue-url', 'http://127.0.0.1:9/other-dlq'], run.io);

  expect(code, run.out()).toBe(2);
  expect(run.err()).toContain('--queue-url');
  expect(run.out()).not.toContain('in-dlq-url');
});
