/**
 * Counts what the worker and its release tick send to the actions queue, by request id, so a
 * test can say how many queue messages a long wait cost.
 */
import type { SendMessageCommandInput, SQSClient } from '@aws-sdk/client-sqs';

type Send = Pick<SQSClient, 'send'>;

export function queueCounter() {
  const byRequest = new Map<string, number>();
  return {
    /** `real`, counting each SendMessage by its request id. */
    wrap(real: Send): Send {
      return {
        send: ((command: { constructor: { name: string }; input: SendMessageCommandInput }) => {
          if (command.constructor.name === 'SendMessageCommand') {
            const id = command.input.MessageAttributes?.requestId?.StringValue ?? '';
            byRequest.set(id, (byRequest.get(id) ?? 0) + 1);
          }
          return (real.send as (c: unknown) => Promise<unknown>)(command);
        }) as Send['send'],
      };
    },
    of: (requestId: string) => byRequest.get(requestId) ?? 0,
  };
}
