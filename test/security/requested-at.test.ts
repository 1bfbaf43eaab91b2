/**
 * Time is checked: a `requestedAt` more than five minutes ahead of the worker's clock would
 * never expire (`maxDeferHours` counts from it), so the request goes to the DLQ with the reason,
 * is audited and changes nothing. A little skew between producers' clocks is accepted.
 */
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { benchResetEachTest } from '../worker/fixture.js';

const bench = benchResetEachTest();
let worker: WorkerHandler;

beforeAll(() => {
  worker = bench.worker();
});

async function dlqErrors(): Promise<string[]> {
  const { Messages = [] } = await bench.queue.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: bench.emulators.dlqUrl,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
    }),
  );
  for (const m of Messages)
    await bench.queue.sqs.send(
      new DeleteMessageCommand({ QueueUrl: bench.emulators.dlqUrl, ReceiptHandle: m.ReceiptHandle }),
    );
  return Messages.map((m) => m.MessageAttributes?.error?.StringValue ?? '');
}

async function runOne(requestedAt: string, requestId: string, triggerId: string) {
  // A chat request: the chat grant would approve it at once, windows and limits aside.
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestedAt,
    requestId,
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
  });
  const event = await bench.receive();
  expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
  return readAudit(bench.table, requestId);
}

describe('requestedAt', () => {
  it('refuses a request dated in 2099: DLQ with the reason, audited, nothing approved', async () => {
    const [record] = await runOne('2099-01-01T00:00:00Z', 'from-the-future', 'trg_4');
    expect(record).toMatchObject({ result: 'dead-lettered', rule: 'requested-in-future' });
    expect(bench.approvals('trg_4')).toBe(0);
    expect(await dlqErrors()).toEqual([
      "requestedAt 2099-01-01T00:00:00Z is more than 5 minutes ahead of the worker's clock (2026-11-23T10:00:00.000Z)",
    ]);
  });

  it('refuses one just over five minutes ahead and accepts one just under', async () => {
    const [late] = await runOne('2026-11-23T10:05:01Z', 'ahead-5m01', 'trg_4');
    expect(late).toMatchObject({ result: 'dead-lettered', rule: 'requested-in-future' });
    expect(await dlqErrors()).toHaveLength(1);
    const [skewed] = await runOne('2026-11-23T10:04:59Z', 'ahead-4m59', 'trg_4');
    expect(skewed).toMatchObject({ result: 'approved' });
    expect(bench.approvals('trg_4')).toBe(1);
  });
});
