/**
 * SQS delays under an injected clock. The worker defers a request by re-sending it with a
 * delay (≤ 900 s of real time); with the clock injected, the test holds such messages itself
 * and releases them once the injected clock reaches their due time — what SQS does, on the
 * test's time.
 */
import type { SendMessageCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { SendMessageCommand } from '@aws-sdk/client-sqs';

type Send = Pick<SQSClient, 'send'>;

export interface HeldMessage {
  dueAt: number;
  input: SendMessageCommandInput;
}

export function holdDelayedSends(real: Send, clock: () => number) {
  const held: HeldMessage[] = [];
  const sqs: Send = {
    send: ((command: { constructor: { name: string }; input: SendMessageCommandInput }) => {
      const delay = command.input?.DelaySeconds ?? 0;
      if (command.constructor.name === 'SendMessageCommand' && delay > 0) {
        held.push({ dueAt: clock() + delay * 1000, input: command.input });
        return Promise.resolve({ MessageId: `held-${held.length}` });
      }
      return (real.send as (c: unknown) => Promise<unknown>)(command);
    }) as Send['send'],
  };
  return {
    sqs,
    held,
    /** Sends every held message that is due by the injected clock; returns how many. */
    async release(): Promise<number> {
      const due = held.filter((h) => h.dueAt <= clock());
      for (const message of due) {
        held.splice(held.indexOf(message), 1);
        const { DelaySeconds: _delay, ...input } = message.input;
        await real.send(new SendMessageCommand(input));
      }
      return due.length;
    },
  };
}
