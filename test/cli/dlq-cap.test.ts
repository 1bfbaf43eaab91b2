/**
 * One `dlq` command reads 1000 messages at most. It used to stop there silently: `list` showed
 * 1000 of 1005 with exit 0, and `redrive --all` moved part of the DLQ as if it were all of it.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

const TOTAL = 1005;
const bench = benchForFile();
beforeAll(async () => {
  for (let first = 0; first < TOTAL; first += 10) {
    const entries = Array.from({ length: Math.min(10, TOTAL - first) }, (_, i) => ({
      Id: `m${first + i}`,
      MessageBody: `not json ${first + i}`,
    }));
    await bench.queue.sqs.send(
      new SendMessageBatchCommand({ QueueUrl: bench.emulators.dlqUrl, Entries: entries }),
    );
  }
});

const io = () =>
  captureIo({
    env: {
      DLQ_URL: bench.emulators.dlqUrl,
      ACTIONS_QUEUE_URL: bench.emulators.queueUrl,
      AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint,
    },
  });

describe('a DLQ larger than one command reads', () => {
  it('lists the first 1000 and says that there are more', async () => {
    const t = io();
    expect(await runCli(['dlq', 'list', '--json'], t.io)).toBe(0);
    expect((JSON.parse(t.out()) as unknown[]).length).toBe(1000);
    expect(t.err()).toContain('only the first 1000 messages were read; the DLQ holds more');
  });

  it('does not call a redrive of everything done when it moved only part (dry run)', async () => {
    const t = io();
    expect(await runCli(['dlq', 'redrive', '--all', '--dry-run'], t.io)).toBe(1);
    expect(t.out()).toContain('Would move 1000 message(s)');
    expect(t.err()).toContain('the DLQ holds more');
  });
});
