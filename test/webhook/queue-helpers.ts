/** Draining the emulated actions queue so tests can assert exactly what was sent. */
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface ReceivedAction {
  body: Record<string, unknown>;
  attributes: Record<string, string | undefined>;
}

/** Everything currently on the queue (waits up to `waitSeconds` for the first message), deleted as read. */
export async function drainQueue(
  sqs: SQSClient,
  queueUrl: string,
  waitSeconds = 0,
): Promise<ReceivedAction[]> {
  const out: ReceivedAction[] = [];
  for (let round = 0; round < 20; round++) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: round === 0 ? waitSeconds : 0,
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      out.push({
        body: JSON.parse(message.Body ?? 'null'),
        attributes: Object.fromEntries(
          Object.entries(message.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue]),
        ),
      });
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    }
  }
  return out;
}
