/**
 * `dlq redrive` and `dlq delete` when the hold of their first read (120 s) runs out while they
 * work and another reader takes a message meanwhile: the redrive used to put that message "back"
 * with its stale receipt handle, SQS refused, and the command ended with "the DLQ … could not be
 * read" and no report, so the operator could not tell which messages were already moved. The
 * clock is faked (Date only; fauxqs runs in this process and times holds by it), and the moment
 * comes from the CLI's own SQS calls: no sleeps.
 */
import { PurgeQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';

/** Run after the CLI's SQS call of that name completes, once (armed by a test). */
const after: { command?: string | undefined; run?: (() => Promise<void>) | undefined } = {};

vi.mock('../../src/queue/actions-queue.js', async (original) => {
  const mod = await original<typeof import('../../src/queue/actions-queue.js')>();
  return {
    ...mod,
    createSqsClient: (options: Parameters<typeof mod.createSqsClient>[0]) => {
      const client = mod.createSqsClient(options);
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const out = await next(args);
          if (context.commandName === after.command && after.run) {
            const run = after.run;
            after.run = undefined;
            await run();
          }
          return out;
        },
        { step: 'initialize', name: 'testAfterCall' },
      );
      return client;
    },
  };
});

const { startEmulators } = await import('../../src/local/emulators.js');
const { runCli } = await import('../../src/cli/run.js');
const { captureIo } = await import('../helpers/cli-io.js');

let emulators: Awaited<ReturnType<typeof startEmulators>>;
beforeAll(async () => {
  emulators = await startEmulators();
});
afterAll(async () => {
  await emulators?.stop();
});
beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-23T10:00:00Z'));
  after.command = undefined;
  after.run = undefined;
  await emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: emulators.dlqUrl }));
  await emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: emulators.queueUrl }));
});
afterEach(() => {
  vi.useRealTimers();
});

function request(requestId: string) {
  return JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy' },
    requestedAt: '2026-11-23T09:00:00Z',
    requestId,
  });
}

async function deadLetter(requestId: string): Promise<string> {
  const out = await emulators.sqs.send(
    new SendMessageCommand({ QueueUrl: emulators.dlqUrl, MessageBody: request(requestId) }),
  );
  return out.MessageId ?? '';
}

/** The first read's hold (120 s) runs out; a second reader (another operator's `dlq list`) takes what is visible. */
async function holdRunsOutAndAnotherReaderTakes(): Promise<string[]> {
  vi.setSystemTime(Date.now() + 121_000);
  const { Messages = [] } = await emulators.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: emulators.dlqUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 300,
    }),
  );
  return Messages.map((m) => m.MessageId ?? '');
}

async function bodies(url: string): Promise<string[]> {
  const { Messages = [] } = await emulators.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
  );
  return Messages.map((m) => m.Body ?? '');
}

function cliIo() {
  return captureIo({
    env: {
      DLQ_URL: emulators.dlqUrl,
      ACTIONS_QUEUE_URL: emulators.queueUrl,
      AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
    },
    now: () => new Date('2026-11-23T10:00:00Z'),
  });
}

it('dlq redrive reports every message (moved, and NOT moved because another reader holds it) and exits 1', async () => {
  const first = await deadLetter('req-first');
  const second = await deadLetter('req-second');
  let taken: string[] = [];
  // Once the first message is moved (sent, then deleted from the DLQ), the hold on the second runs out.
  after.command = 'DeleteMessageCommand';
  after.run = async () => {
    taken = await holdRunsOutAndAnotherReaderTakes();
  };
  const t = cliIo();
  const code = await runCli(['dlq', 'redrive', '--all'], t.io);
  expect(taken).toEqual([second]);
  expect(t.err()).not.toContain('could not be read');
  expect(t.out()).toContain('Moved 1 message(s) back to the actions queue.');
  expect(t.out()).toMatch(new RegExp(`${first} → .* \\(request req-first\\)`));
  expect(t.out()).toMatch(new RegExp(`NOT moved ${second}: .*another reader`));
  expect(code).toBe(1);
  // Sent once, the other not at all.
  expect(await bodies(emulators.queueUrl)).toEqual([request('req-first')]);
});

it('dlq redrive --json says the same', async () => {
  const first = await deadLetter('req-first');
  const second = await deadLetter('req-second');
  after.command = 'DeleteMessageCommand';
  after.run = async () => {
    await holdRunsOutAndAnotherReaderTakes();
  };
  const t = cliIo();
  const code = await runCli(['dlq', 'redrive', '--all', '--json'], t.io);
  expect(code).toBe(1);
  const report = JSON.parse(t.out());
  expect(report.moved.map((m: { messageId: string }) => m.messageId)).toEqual([first]);
  expect(report.failed.map((f: { messageId: string }) => f.messageId)).toEqual([second]);
});

it('dlq delete, declined after the hold ran out at the prompt, says nothing was deleted', async () => {
  const first = await deadLetter('req-first');
  const t = cliIo();
  t.io.confirm = async () => {
    await holdRunsOutAndAnotherReaderTakes();
    return false;
  };
  const code = await runCli(['dlq', 'delete', first], t.io);
  expect(t.err()).not.toContain('could not be read');
  expect(t.out()).toBe('Nothing deleted.');
  expect(code).toBe(1);
});

it('dlq delete, confirmed after the hold ran out at the prompt, deletes nothing another reader holds', async () => {
  const first = await deadLetter('req-first');
  const t = cliIo();
  t.io.confirm = async () => {
    await holdRunsOutAndAnotherReaderTakes();
    return true;
  };
  const code = await runCli(['dlq', 'delete', first], t.io);
  expect(t.out()).toContain('Deleted 0 message(s) from the DLQ.');
  expect(t.out()).toMatch(new RegExp(`NOT deleted ${first}: .*another reader`));
  expect(code).toBe(1);
});
