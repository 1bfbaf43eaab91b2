/**
 * A request queued without a request id (`enqueue approve` without --request-id) is known by
 * `sqs:<message id>` everywhere: enqueue's stderr, every log line, the audit trail. When its
 * retries run out, SQS moves it to the DLQ under the same message id. `dlq list` should name
 * it by that id, and `dlq redrive --id sqs:<message id>` (README: "--id takes the DLQ message
 * id, the original message id or the request id") should find it.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

// One receive allowed: the second moves the message to the DLQ, as the fifth does deployed.
const bench = benchForFile({ emulators: { maxReceiveCount: 1 } });

function io() {
  return captureIo({
    env: {
      DLQ_URL: bench.emulators.dlqUrl,
      ACTIONS_QUEUE_URL: bench.emulators.queueUrl,
      AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint,
    },
  });
}

describe('a message without a request id, moved by SQS after its retries', () => {
  it('is listed and redriven by the request id the rest of the system gave it (sqs:<message id>)', async () => {
    const sent = await bench.queue.sqs.send(
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
      }),
    );
    const requestId = `sqs:${sent.MessageId}`;
    // Received and failed (visible again at once), then moved by the redrive policy.
    for (let i = 0; i < 2; i += 1)
      await bench.queue.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: bench.queue.queueUrl, VisibilityTimeout: 0 }),
      );

    const list = io();
    expect(await runCli(['dlq', 'list', '--json'], list.io)).toBe(0);
    const letters = JSON.parse(list.out()) as Array<{ messageId: string; requestId?: string }>;
    expect(letters.map((l) => l.messageId)).toEqual([sent.MessageId]);
    expect(letters[0]?.requestId).toBe(requestId);

    const redrive = io();
    const code = await runCli(['dlq', 'redrive', '--id', requestId], redrive.io);
    expect(redrive.out()).toContain('Moved 1 message(s)');
    expect(code).toBe(0);
  });
});
