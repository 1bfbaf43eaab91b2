/**
 * A message the redrive refuses (moved from a foreign queue) or that should never run (a forged
 * request) stays in the DLQ, and `DeadLetterQueueNotEmpty` keeps firing; the CLI had no way to
 * remove it (the console, or `aws sqs delete-message` with a receipt handle). `autopilot dlq
 * delete <id>…` removes exactly the messages it names, after asking (or `--yes`), and says what it
 * deleted; against fauxqs, as the other `dlq` commands.
 */
import {
  ChangeMessageVisibilityCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { deleteLetters } from '../../src/queue/dead-letter-delete.js';
import { receiveAll, release } from '../../src/queue/dead-letters.js';
import { captureIo } from '../helpers/cli-io.js';

let emulators: Emulators;
beforeAll(async () => {
  emulators = await startEmulators();
});
afterAll(async () => {
  await emulators?.stop();
});

const request = (requestId: string, source = 'ci') =>
  JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source, id: 'deploy' },
    requestedAt: '2026-11-23T09:00:00Z',
    requestId,
  });

/** Puts a message in the DLQ; returns its message id. */
async function deadLetter(body: string, error?: string): Promise<string> {
  const out = await emulators.sqs.send(
    new SendMessageCommand({
      QueueUrl: emulators.dlqUrl,
      MessageBody: body,
      ...(error ? { MessageAttributes: { error: { DataType: 'String', StringValue: error } } } : {}),
    }),
  );
  return out.MessageId as string;
}

/** What is in the DLQ now, by request id (read and made visible again). */
async function inDlq(): Promise<string[]> {
  const letters = await receiveAll(emulators.sqs, emulators.dlqUrl, { holdSeconds: 5 });
  await release(emulators.sqs, emulators.dlqUrl, letters);
  return letters.map((l) => l.requestId ?? '').sort();
}

function io(answer?: boolean) {
  const asked: string[] = [];
  const t = captureIo({
    env: { DLQ_URL: emulators.dlqUrl, AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint },
    ...(answer === undefined
      ? {}
      : {
          confirm: async (question: string) => {
            asked.push(question);
            return answer;
          },
        }),
  });
  return { ...t, asked };
}

beforeEach(async () => {
  await emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: emulators.dlqUrl }));
  await deadLetter(request('r-forged', 'slack'), 'requester not proven: no proof');
  await deadLetter(request('r-keep'));
});

describe('autopilot dlq delete', () => {
  it('deletes the message a request id names, says what it deleted, and leaves the others', async () => {
    const t = io();
    expect(await runCli(['dlq', 'delete', 'r-forged', '--yes'], t.io)).toBe(0);
    expect(t.out()).toContain('Deleted 1 message(s) from the DLQ');
    expect(t.out()).toContain('r-forged');
    expect(t.out()).toContain('requester not proven: no proof');
    expect(await inDlq()).toEqual(['r-keep']);
  });

  it('deletes by message id too, and prints JSON with --json', async () => {
    const id = await deadLetter('not json at all');
    const t = io();
    expect(await runCli(['dlq', 'delete', id, '--yes', '--json'], t.io)).toBe(0);
    const out = JSON.parse(t.out()) as { deleted: Array<{ messageId: string }>; notFound: string[] };
    expect(out.deleted.map((d) => d.messageId)).toEqual([id]);
    expect(out.notFound).toEqual([]);
    expect(await inDlq()).toEqual(['r-forged', 'r-keep']);
  });

  it('asks first, and deletes nothing when the answer is no', async () => {
    const no = io(false);
    expect(await runCli(['dlq', 'delete', 'r-forged'], no.io)).toBe(1);
    expect(no.asked).toEqual(['Delete these 1 message(s) from the DLQ for good? [y/N] ']);
    expect(no.err()).toContain('r-forged');
    expect(no.out()).toContain('Nothing deleted.');
    expect(await inDlq()).toEqual(['r-forged', 'r-keep']);

    const yes = io(true);
    expect(await runCli(['dlq', 'delete', 'r-forged'], yes.io)).toBe(0);
    expect(await inDlq()).toEqual(['r-keep']);
  });

  it('refuses to delete without --yes when it cannot ask, before reading anything', async () => {
    const t = io();
    expect(await runCli(['dlq', 'delete', 'r-forged'], t.io)).toBe(2);
    expect(t.err()).toContain('pass --yes');
    expect(await inDlq()).toEqual(['r-forged', 'r-keep']);
  });

  it('tells with --dry-run what it would delete, and deletes nothing', async () => {
    const t = io();
    expect(await runCli(['dlq', 'delete', 'r-forged', '--dry-run'], t.io)).toBe(0);
    expect(t.out()).toContain('Would delete 1 message(s) from the DLQ (dry run: nothing deleted).');
    expect(t.out()).toContain('r-forged');
    expect(await inDlq()).toEqual(['r-forged', 'r-keep']);
  });

  it('names an id it cannot find, deletes the ones it can, and exits 1', async () => {
    const t = io();
    expect(await runCli(['dlq', 'delete', 'r-forged', 'nope', '--yes'], t.io)).toBe(1);
    expect(t.out()).toContain('not found in the DLQ (or another reader holds it now): nope');
    expect(await inDlq()).toEqual(['r-keep']);
  });

  it('deletes nothing for an id that names more than one message (a body may claim any request id)', async () => {
    // A message whose request id is another message's message id: the id names both.
    const keepId = (await receiveAll(emulators.sqs, emulators.dlqUrl, { holdSeconds: 5 }).then(
      async (letters) => {
        await release(emulators.sqs, emulators.dlqUrl, letters);
        return letters.find((l) => l.requestId === 'r-keep')?.messageId;
      },
    )) as string;
    await deadLetter(request(keepId));
    const t = io();
    expect(await runCli(['dlq', 'delete', keepId, '--yes'], t.io)).toBe(1);
    expect(t.out()).toContain(`${keepId} names 2 messages`);
    expect(t.out()).toContain('Deleted 0 message(s)');
    expect(await inDlq()).toEqual([keepId, 'r-forged', 'r-keep'].sort());
  });

  it('shows untrusted text escaped: a sender chose the reason attribute', async () => {
    await deadLetter(request('r-escape'), 'x\u001b[2J\nr-keep  forged row');
    const t = io();
    expect(await runCli(['dlq', 'delete', 'r-escape', '--yes'], t.io)).toBe(0);
    expect(t.out()).not.toContain('\u001b');
    expect(t.out()).toContain('x\\u001b[2J\\nr-keep  forged row');
    expect(await inDlq()).toEqual(['r-forged', 'r-keep']);
  });

  it('refuses a call that names no message', async () => {
    const t = io();
    expect(await runCli(['dlq', 'delete', '--yes'], t.io)).toBe(2);
    expect(t.err()).toContain('missing arguments');
  });
});

it('does not delete a message whose hold ended and that another reader received meanwhile', async () => {
  const { sqs, dlqUrl } = emulators;
  const letters = await receiveAll(sqs, dlqUrl, { holdSeconds: 60 });
  const forged = letters.find((l) => l.requestId === 'r-forged');
  const kept = letters.filter((l) => l !== forged);
  await release(sqs, dlqUrl, kept);
  // The hold ends (an operator slow to answer), and another reader takes the message.
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: dlqUrl,
      ReceiptHandle: forged?.receiptHandle,
      VisibilityTimeout: 0,
    }),
  );
  const other = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }),
  );
  const taken = other.Messages?.find((m) => m.MessageId === forged?.messageId);
  expect(taken).toBeDefined();
  const result = await deleteLetters(sqs, dlqUrl, forged ? [forged] : []);
  expect(result).toEqual({
    deleted: [],
    failed: [
      {
        messageId: forged?.messageId,
        error:
          'no longer held (its hold ended, or another reader has it): not deleted; run the command again',
      },
    ],
  });
  for (const message of other.Messages ?? [])
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: dlqUrl,
        ReceiptHandle: message.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
  expect(await inDlq()).toEqual(['r-forged', 'r-keep']);
});
