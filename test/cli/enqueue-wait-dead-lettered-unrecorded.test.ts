/**
 * `enqueue --wait` as a CI gate, when the worker crashes on every attempt before it can write
 * anything (no audit record): SQS moves the request to the DLQ, and the gate, which may only
 * send to the queue and read the state table (README: the CI role's permissions), sees nothing
 * but "queued" until its timeout. It cannot look in the DLQ, so its exit-4 message must say the
 * request may be there and how an operator finds it, rather than "still held: queued".
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';
import { emulatorEnv, runGate } from './gate.js';

// Two receives allowed: the third moves the message to the DLQ, as the sixth would deployed.
const bench = benchForFile({ emulators: { maxReceiveCount: 2 } });

it('says at the timeout that a request the worker never recorded may be in the DLQ, and how to find it', async () => {
  const env = emulatorEnv(bench);
  const { code, io: gate } = await runGate(bench, {
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: 'ci:deploy',
    requestId: 'deploy-77-ph_1',
    // Each poll interval, a worker receives the request and crashes before recording anything:
    // the message is visible again at once, and SQS counts the receive.
    onPause: async () => {
      await bench.queue.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: bench.queue.queueUrl, VisibilityTimeout: 0 }),
      );
    },
  });

  // The request is in the DLQ, as an operator sees it...
  const operator = captureIo({ env: { ...env, DLQ_URL: bench.emulators.dlqUrl } });
  expect(await runCli(['dlq', 'list', '--json'], operator.io), operator.err()).toBe(0);
  const letters = JSON.parse(operator.out()) as Array<{ requestId?: string }>;
  expect(letters.map((l) => l.requestId)).toEqual(['deploy-77-ph_1']);

  // ...and the gate, which cannot read the DLQ, says it may be there and how to find it.
  expect(code, gate.err()).toBe(4);
  const said = gate.err();
  expect(said).toContain('still queued at the timeout');
  expect(said).not.toContain('still held');
  expect(said).toContain('dead-letter queue');
  expect(said).toContain('autopilot dlq list');
  expect(said).toContain('deploy-77-ph_1');
});
