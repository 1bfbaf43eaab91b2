/**
 * `autopilot dlq list`: a failure after the DLQ was read (here, writing the listing) is reported
 * as that command failing, not as "the DLQ could not be read", which would send an operator to
 * check SQS permissions that are fine. What was held goes back to the queue either way.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

describe('dlq list failing after its read', () => {
  it('says the command failed after reading, and leaves the message in the DLQ', async () => {
    await bench.queue.sqs.send(
      new SendMessageCommand({ QueueUrl: bench.emulators.dlqUrl, MessageBody: '{"not":"a request"}' }),
    );
    const { io, err } = captureIo({
      env: { DLQ_URL: bench.emulators.dlqUrl, AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint },
    });
    io.stdout = () => {
      throw new Error('stdout is closed');
    };
    expect(await runCli(['dlq', 'list'], io)).toBe(1);
    expect(err()).toMatch(/dlq list failed after reading the DLQ at .*: stdout is closed/);
    expect(err()).not.toMatch(/could not be read/);
    const { Messages = [] } = await bench.queue.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bench.emulators.dlqUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
      }),
    );
    expect(Messages.map((m) => m.Body)).toEqual(['{"not":"a request"}']);
  });
});
