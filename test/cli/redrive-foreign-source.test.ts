/**
 * `dlq redrive` sent back whatever was in the DLQ. A DLQ's redrive-allow policy defaults to any
 * queue of the account: whoever can create a queue could name ours its dead-letter target, put a
 * `ci:` request in it and receive it until SQS moved it into our DLQ (no SendMessage on the DLQ
 * needed), and the operator's redrive would hand it to the worker as CI. AWS marks every message
 * it moves with `DeadLetterQueueSourceArn`; the redrive now sends back only messages moved from
 * the actions queue itself (and the worker's own copies, which carry no such mark).
 *
 * fauxqs moves messages between queues like SQS but does not report that attribute: the client
 * below adds it the way AWS does (only when asked for, and only on a message another queue moved).
 */
import {
  CreateQueueCommand,
  type Message,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { foreignLetters, receiveAll, redrive } from '../../src/queue/dead-letters.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { queueArn } from '../helpers/lambda.js';

const { emu: emulators } = emulatorsForFile();
const arnOf = (sqs: SQSClient, queueUrl: string) => queueArn({ sqs, queueUrl });

/** fauxqs, reporting `DeadLetterQueueSourceArn` on messages it moved into `dlqUrl`, as SQS does. */
function withDeadLetterSource(sqs: SQSClient, dlqUrl: string, arns: Map<string, string>) {
  const sentTo = new Map<string, string>();
  return {
    async send(command: unknown): Promise<unknown> {
      const out = (await sqs.send(command as never)) as { MessageId?: string; Messages?: Message[] };
      if (command instanceof SendMessageCommand && typeof out.MessageId === 'string') {
        sentTo.set(out.MessageId, command.input.QueueUrl as string);
      }
      const asked =
        command instanceof ReceiveMessageCommand &&
        command.input.QueueUrl === dlqUrl &&
        (command.input.MessageSystemAttributeNames ?? []).some(
          (n) => n === 'DeadLetterQueueSourceArn' || n === 'All',
        );
      if (asked) {
        for (const message of out.Messages ?? []) {
          const from = sentTo.get(message.MessageId ?? '');
          if (from && from !== dlqUrl) {
            message.Attributes = {
              ...message.Attributes,
              DeadLetterQueueSourceArn: arns.get(from) as string,
            };
          }
        }
      }
      return out;
    },
  } as Pick<SQSClient, 'send'>;
}

/** Receives `url`'s messages until SQS has moved them on (each receive counts). */
async function receiveUntilMoved(sqs: SQSClient, url: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
  }
}

const ciRequest = (requestId: string) =>
  JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy' },
    requestedAt: '2026-11-23T09:00:00Z',
    requestId,
  });

it('sends back what SQS moved from the actions queue, and refuses what another queue moved into the DLQ', async () => {
  const { sqs, dlqUrl, queueUrl } = emulators;
  await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
  await sqs.send(new PurgeQueueCommand({ QueueUrl: dlqUrl }));
  const dlqArn = await arnOf(sqs, dlqUrl);
  // Someone with rights to create queues, but not to send to ours, names our DLQ as theirs.
  const foreign = await sqs.send(
    new CreateQueueCommand({
      QueueName: 'not-ours',
      Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) },
    }),
  );
  const foreignUrl = foreign.QueueUrl as string;
  const arns = new Map([
    [queueUrl, await arnOf(sqs, queueUrl)],
    [foreignUrl, await arnOf(sqs, foreignUrl)],
  ]);
  const client = withDeadLetterSource(sqs, dlqUrl, arns);

  await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: ciRequest('r-genuine') }));
  await client.send(new SendMessageCommand({ QueueUrl: foreignUrl, MessageBody: ciRequest('r-forged') }));
  await receiveUntilMoved(sqs, queueUrl, 7);
  await receiveUntilMoved(sqs, foreignUrl, 3);

  const letters = await receiveAll(client, dlqUrl, { holdSeconds: 60 });
  expect(letters.map((l) => l.requestId).sort()).toEqual(['r-forged', 'r-genuine']);
  const forged = letters.find((l) => l.requestId === 'r-forged');
  const refusal = `SQS moved it here from another queue (${arns.get(foreignUrl)}), not from the actions queue: not sent (whoever can send to that queue could have written it)`;
  // What `--dry-run` tells as not moving.
  expect(await foreignLetters(client, queueUrl, letters)).toEqual(new Map([[forged?.messageId, refusal]]));
  const result = await redrive(client, { dlqUrl, queueUrl }, letters);

  expect(result.moved.map((m) => m.requestId)).toEqual(['r-genuine']);
  expect(result.failed).toEqual([{ messageId: forged?.messageId, error: refusal }]);
  const sentBack = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  expect(sentBack.Messages?.map((m) => JSON.parse(m.Body ?? '{}').requestId)).toEqual(['r-genuine']);
});
