/** How the `dlq` commands show a dead letter (a table row, or JSON without its handle) and which ids name it. */
import type { DeadLetter } from '../queue/dead-letters.js';

export const HEADERS = ['message id', 'request id', 'action', 'target', 'failed at', 'reason'];

export const row = (l: DeadLetter) => [
  l.messageId,
  l.requestId ?? '-',
  l.action ?? '-',
  l.target || '-',
  l.failedAt ?? '-',
  l.reason,
];

export const plain = (l: DeadLetter) => {
  const { receiptHandle: _handle, attributes: _attributes, ...shown } = l;
  return shown;
};

/** Whether `id` names the letter: its DLQ message id, the original message id or its request id. */
export const names = (l: DeadLetter, id: string) =>
  l.messageId === id || l.sourceMessageId === id || l.requestId === id;
