/**
 * `enqueue --print --wait`: --print sends nothing, so there is no outcome to wait for, yet the
 * command asked for a state table (--wait's), printed the request and exited 0, the gate's
 * "approved", without anything being queued: a deploy job gated on it would go ahead. The
 * combination is now a usage error (exit 2), before anything is printed or sent; against fauxqs
 * and dynalite.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
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

it('refuses --print with --wait (exit 2): nothing printed as if it were the request, nothing queued', async () => {
  const run = captureIo({
    env: {
      ACTIONS_QUEUE_URL: emulators.queueUrl,
      STATE_TABLE_NAME: emulators.tableName,
      AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    },
  });
  const code = await runCli(
    ['enqueue', 'approve', 'trg_1', 'ph_1', '--requested-by', 'ci:deploy', '--print', '--wait'],
    run.io,
  );

  expect(code, run.err()).toBe(2);
  expect(run.err()).toContain('--print');
  expect(run.out()).toBe('');
  const queued = await emulators.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: emulators.queueUrl, WaitTimeSeconds: 0 }),
  );
  expect(queued.Messages ?? []).toEqual([]);
});
