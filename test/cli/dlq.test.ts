/**
 * Issue 15 item 5: `autopilot dlq list` and `dlq redrive` against the SQS emulator, with
 * messages the real worker dead-lettered (an unproven requester, an invalid body) and one SQS
 * moved after its retries ran out. Nothing is lost: a redriven message is deleted from the DLQ
 * only after the send, and a failed send leaves it there.
 */
import { PurgeQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { PROOF_ATTRIBUTE } from '../../src/actions/proof.js';
import { runCli } from '../../src/cli/run.js';
import { receiveAll, release } from '../../src/queue/dead-letters.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

function io(extra: Record<string, string> = {}) {
  return captureIo({
    env: {
      DLQ_URL: bench.emulators.dlqUrl,
      ACTIONS_QUEUE_URL: bench.emulators.queueUrl,
      AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint,
      ...extra,
    },
  });
}

async function queueBodies(url: string) {
  const { Messages = [] } = await bench.queue.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      VisibilityTimeout: 0,
    }),
  );
  return Messages;
}

/** Fills the DLQ: two messages the worker refused, and one as SQS moves it after 5 receives. */
async function fillDeadLetters() {
  const worker = bench.worker();
  await bench.queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.queue.queueUrl,
      MessageBody: JSON.stringify({
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'slack', id: 'U0ADMIN' },
        requestedAt: bench.clock.now.toISOString(),
        requestId: 'dlq-forged',
      }),
    }),
  );
  await bench.queue.sqs.send(
    new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: '{"version":1,"action":"nope"}' }),
  );
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  // Retries exhausted: SQS keeps the original body and attributes, the proof among them.
  await bench.queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.emulators.dlqUrl,
      MessageBody: JSON.stringify({
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_2',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'deploy' },
        requestedAt: bench.clock.now.toISOString(),
        requestId: 'dlq-exhausted',
      }),
      MessageAttributes: { [PROOF_ATTRIBUTE]: { DataType: 'String', StringValue: 'v1.webhook.abc' } },
    }),
  );
}

describe('autopilot dlq', () => {
  beforeEach(async () => {
    await bench.purge();
    await bench.queue.sqs.send(new PurgeQueueCommand({ QueueUrl: bench.emulators.dlqUrl }));
    await fillDeadLetters();
  });

  it('lists every message with its request id and reason, and leaves them all in place', async () => {
    const t = io();
    expect(await runCli(['dlq', 'list'], t.io)).toBe(0);
    expect(t.out()).toContain('3 message(s).');
    expect(t.out()).toContain('dlq-forged');
    expect(t.out()).toContain('requester not proven');
    expect(t.out()).toContain('Invalid discriminator value');
    expect(t.out()).toContain('retries exhausted');
    const json = io();
    expect(await runCli(['dlq', 'list', '--json'], json.io)).toBe(0);
    const listed = JSON.parse(json.out()) as Array<{ requestId?: string; reason: string }>;
    expect(listed.map((l) => l.requestId)).toEqual(
      expect.arrayContaining(['dlq-exhausted', 'dlq-forged', expect.stringMatching(/^sqs:/)]),
    );
    expect(listed).toHaveLength(3);
    // Still all there, visible at once.
    expect(
      await receiveAll(bench.queue.sqs, bench.emulators.dlqUrl, { holdSeconds: 1 }).then(async (l) => {
        await release(bench.queue.sqs, bench.emulators.dlqUrl, l);
        return l.length;
      }),
    ).toBe(3);
  });

  it('redrives one by request id with its original body and proof, and only that one', async () => {
    const dry = io();
    expect(await runCli(['dlq', 'redrive', '--id', 'dlq-exhausted', '--dry-run'], dry.io)).toBe(0);
    expect(dry.out()).toContain('Would move 1 message(s)');
    expect(await queueBodies(bench.queue.queueUrl)).toEqual([]);

    const t = io();
    expect(await runCli(['dlq', 'redrive', '--id', 'dlq-exhausted'], t.io)).toBe(0);
    expect(t.out()).toContain('Moved 1 message(s)');
    const [moved, ...more] = await queueBodies(bench.queue.queueUrl);
    expect(more).toEqual([]);
    expect(JSON.parse(moved?.Body ?? '{}').requestId).toBe('dlq-exhausted');
    expect(moved?.MessageAttributes?.[PROOF_ATTRIBUTE]?.StringValue).toBe('v1.webhook.abc');
    const left = await receiveAll(bench.queue.sqs, bench.emulators.dlqUrl, { holdSeconds: 1 });
    await release(bench.queue.sqs, bench.emulators.dlqUrl, left);
    expect(left.map((l) => l.requestId)).not.toContain('dlq-exhausted');
    expect(left).toHaveLength(2);
  });

  it('drops the DLQ attributes of a message the worker moved, so the worker reads it afresh', async () => {
    const t = io();
    expect(await runCli(['dlq', 'redrive', '--id', 'dlq-forged', '--json'], t.io)).toBe(0);
    expect(JSON.parse(t.out()).moved).toHaveLength(1);
    const [moved] = await queueBodies(bench.queue.queueUrl);
    expect(Object.keys(moved?.MessageAttributes ?? {})).not.toContain('error');
    expect(Object.keys(moved?.MessageAttributes ?? {})).not.toContain('sourceMessageId');
  });

  it('keeps a message in the DLQ when the send fails, and says so with exit 1', async () => {
    const t = io({ ACTIONS_QUEUE_URL: `${bench.emulators.sqsEndpoint}/000000000000/no-such-queue` });
    expect(await runCli(['dlq', 'redrive', '--all'], t.io)).toBe(1);
    expect(t.out()).toContain('NOT moved');
    const left = await receiveAll(bench.queue.sqs, bench.emulators.dlqUrl, { holdSeconds: 1 });
    await release(bench.queue.sqs, bench.emulators.dlqUrl, left);
    expect(left).toHaveLength(3);
  });

  it('refuses a call that does not say what to move, and names ids it cannot find', async () => {
    const none = io();
    expect(await runCli(['dlq', 'redrive'], none.io)).toBe(2);
    expect(none.err()).toContain('--id <id> (repeatable) or --all');
    const missing = io();
    expect(await runCli(['dlq', 'redrive', '--id', 'nope'], missing.io)).toBe(1);
    expect(missing.out()).toContain('not in the DLQ: nope');
    const nowhere = io({ DLQ_URL: '' });
    expect(
      await runCli(['dlq', 'list'], { ...nowhere.io, env: { ...nowhere.io.env, DLQ_URL: undefined } }),
    ).toBe(2);
  });
});
