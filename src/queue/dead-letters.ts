/**
 * Reading and redriving the dead-letter queue without losing a message. Two kinds land there:
 * messages the worker moved itself (invalid, requester not proven, dated in the future; they
 * carry `error`, `sourceMessageId` and `failedAt` attributes) and messages SQS moved after
 * five receives (retries exhausted; their attributes are the original ones).
 *
 * Listing receives every message with a short visibility timeout and makes each visible again
 * at once: nothing is deleted. Redriving sends a message back to the actions queue with its
 * original body and attributes (the requester proof included) and deletes it from the DLQ only
 * after that send succeeded; a failed send leaves it in the DLQ. Only messages from the actions
 * queue go back: any queue of the account may name this DLQ its dead-letter target (the default
 * redrive-allow policy), so one SQS moved here from another queue was written by whoever can send
 * there, and would reach the worker under the redriving operator's name (as `ci:`, unproven).
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { actionTarget, parseActionRequest } from '../actions/request.js';
import { MAX_RECEIVE_COUNT } from './redrive.js';

type Sqs = Pick<SQSClient, 'send'>;

/** The attributes the worker adds when it moves a message; a redrive leaves them behind. */
const DLQ_ATTRIBUTES = new Set(['error', 'sourceMessageId', 'failedAt']);

export interface DeadLetter {
  messageId: string;
  /** The request id in the body, when the body is an action request with one. */
  requestId?: string;
  action?: string;
  target?: string;
  /** Why it is here, in words. */
  reason: string;
  failedAt?: string;
  sourceMessageId?: string;
  /** The queue SQS moved it from (`DeadLetterQueueSourceArn`); none on the worker's own copies. */
  movedFrom?: string;
  receiveCount: number;
  body: string;
  attributes: Record<string, MessageAttributeValue>;
  receiptHandle: string;
}

function describe(message: Message): DeadLetter {
  const attributes = message.MessageAttributes ?? {};
  // One SQS moved here carries its sender's attributes, not the worker's: a sender (not proven)
  // must not write its reason, its time or the message id it is known by.
  const movedFrom = message.Attributes?.DeadLetterQueueSourceArn;
  const text = (name: string) => (movedFrom ? undefined : attributes[name]?.StringValue);
  const body = message.Body ?? '';
  // The same reading the worker made: a valid request tells its id, action and target as the audit does.
  const parsed = parseActionRequest(body);
  const request = parsed.ok ? parsed.request : undefined;
  const receives = Number(message.Attributes?.ApproximateReceiveCount ?? '0');
  const letter: DeadLetter = {
    messageId: message.MessageId ?? '',
    reason:
      text('error') ??
      `retries exhausted: the worker failed it ${MAX_RECEIVE_COUNT} times (see its logs for the request id)`,
    receiveCount: receives,
    body,
    attributes,
    receiptHandle: message.ReceiptHandle ?? '',
  };
  // Without one in the body the worker named it after the message it received: the worker's
  // copy says which (sourceMessageId); one SQS moved after its retries keeps its message id.
  const received = text('sourceMessageId') ?? message.MessageId;
  const requestId = request?.requestId ?? (received ? `sqs:${received}` : undefined);
  if (requestId) letter.requestId = requestId;
  if (request) {
    letter.action = request.action;
    letter.target = actionTarget(request);
  }
  const failedAt = text('failedAt');
  if (failedAt) letter.failedAt = failedAt;
  const source = text('sourceMessageId');
  if (source) letter.sourceMessageId = source;
  if (movedFrom) letter.movedFrom = movedFrom;
  return letter;
}

/**
 * Every message in the DLQ (at most `max`), held invisible for `holdSeconds` while the caller
 * works on them; `release` makes the ones it did not delete visible again.
 */
/** Messages one command reads at most (each is held while it works). */
export const DLQ_READ_MAX = 1000;

export async function receiveAll(
  sqs: Sqs,
  dlqUrl: string,
  options: { max?: number; holdSeconds?: number } = {},
): Promise<DeadLetter[]> {
  const max = options.max ?? DLQ_READ_MAX;
  const seen = new Map<string, DeadLetter>();
  // An empty receive can be a miss on a distributed queue: stop after two in a row.
  for (let empty = 0; empty < 2 && seen.size < max; ) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - seen.size),
        VisibilityTimeout: options.holdSeconds ?? 60,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'DeadLetterQueueSourceArn'],
      }),
    );
    // Only messages not seen yet count: one whose hold ran out comes again, and would loop forever.
    const fresh = Messages.map(describe).filter((letter) => !seen.has(letter.messageId));
    empty = fresh.length === 0 ? empty + 1 : 0;
    for (const letter of fresh) seen.set(letter.messageId, letter);
  }
  return [...seen.values()];
}

/**
 * Makes messages visible again (list, dry run, the ones not chosen or not moved). Best effort,
 * never throws: SQS refuses a stale receipt handle, that is a message whose hold already ended
 * (visible again, or another reader holds it now and must keep it), and any other failure only
 * leaves it hidden until its hold ends. A throw here used to end a redrive before its report,
 * leaving the operator unable to tell which messages had already been moved.
 */
export async function release(sqs: Sqs, dlqUrl: string, letters: DeadLetter[]): Promise<void> {
  await Promise.allSettled(
    letters.map((letter) =>
      sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: dlqUrl,
          ReceiptHandle: letter.receiptHandle,
          VisibilityTimeout: 0,
        }),
      ),
    ),
  );
}

export interface RedriveResult {
  /** Sent back; `notDeleted` when its delete from the DLQ then failed (it comes back there). */
  moved: Array<{
    messageId: string;
    newMessageId: string;
    /** The id its outcome is recorded under from now on. */
    requestId?: string;
    /** The id it had before, when the redrive changed it (a body without a request id). */
    wasRequestId?: string;
    notDeleted?: string;
  }>;
  failed: Array<{ messageId: string; error: string }>;
}

/** How long one message is held while it is sent back (or deleted). */
const REDRIVE_HOLD_SECONDS = 60;

/**
 * Holds a letter again just before acting on it; false when SQS refuses, that is when our hold
 * is over (or our handle stale): another reader may have the message, which is then left alone.
 */
export async function holdAgain(sqs: Sqs, dlqUrl: string, letter: DeadLetter): Promise<boolean> {
  return sqs
    .send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: dlqUrl,
        ReceiptHandle: letter.receiptHandle,
        VisibilityTimeout: REDRIVE_HOLD_SECONDS,
      }),
    )
    .then(
      () => true,
      () => false,
    );
}

/**
 * The letters that must not go back to the actions queue, each with why: SQS moved them here
 * from another queue. The worker's own copies carry no source (only the worker may send to the
 * DLQ). The actions queue's ARN is read only when some letter was moved here by SQS.
 */
export async function foreignLetters(
  sqs: Sqs,
  queueUrl: string,
  letters: DeadLetter[],
): Promise<Map<string, string>> {
  const refused = new Map<string, string>();
  const moved = letters.filter((l) => l.movedFrom !== undefined);
  if (moved.length === 0) return refused;
  let ours: string;
  try {
    const out = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );
    ours = out.Attributes?.QueueArn ?? '';
  } catch (error) {
    const why = `could not read the actions queue's ARN to check where it came from: ${(error as Error).message}`;
    for (const l of moved) refused.set(l.messageId, why);
    return refused;
  }
  for (const l of moved) {
    if (l.movedFrom !== ours)
      refused.set(
        l.messageId,
        `SQS moved it here from another queue (${l.movedFrom}), not from the actions queue: not sent (whoever can send to that queue could have written it)`,
      );
  }
  return refused;
}

/**
 * Sends each letter back to the actions queue, then deletes it from the DLQ; never the other way
 * round. Every letter ends in the result, moved or failed with why; the failed ones still held
 * are made visible again, never one no longer held (another reader may hold it now).
 */
export async function redrive(
  sqs: Sqs,
  urls: { dlqUrl: string; queueUrl: string },
  letters: DeadLetter[],
): Promise<RedriveResult> {
  const result: RedriveResult = { moved: [], failed: [] };
  const refused = await foreignLetters(sqs, urls.queueUrl, letters);
  const stillHeld: DeadLetter[] = [];
  for (const letter of letters) {
    const foreign = refused.get(letter.messageId);
    if (foreign) {
      result.failed.push({ messageId: letter.messageId, error: foreign });
      stillHeld.push(letter);
      continue;
    }
    const attributes = Object.fromEntries(
      Object.entries(letter.attributes).filter(([name]) => !DLQ_ATTRIBUTES.has(name)),
    );
    // Held again for this message's send and delete: a long redrive can outlast the first hold,
    // and a message another reader received meanwhile must not be sent twice.
    if (!(await holdAgain(sqs, urls.dlqUrl, letter))) {
      result.failed.push({
        messageId: letter.messageId,
        error: 'no longer held (its hold ended, or another reader has it): not sent; run the redrive again',
      });
      continue;
    }
    let newMessageId: string;
    try {
      const out = await sqs.send(
        new SendMessageCommand({
          QueueUrl: urls.queueUrl,
          MessageBody: letter.body,
          ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
        }),
      );
      newMessageId = out.MessageId ?? '';
    } catch (error) {
      // Not sent: it stays in the DLQ.
      result.failed.push({ messageId: letter.messageId, error: (error as Error).message });
      stillHeld.push(letter);
      continue;
    }
    // Sent: whatever the delete does, it is told as moved (never made visible again here), and the others go on.
    const notDeleted = await sqs
      .send(new DeleteMessageCommand({ QueueUrl: urls.dlqUrl, ReceiptHandle: letter.receiptHandle }))
      .then(
        () => undefined,
        (error: unknown) => (error as Error).message,
      );
    // A body without a request id is named by the worker after the message it receives: the
    // redriven one is a new message, so its outcome is recorded under the new id, not the old.
    const parsed = parseActionRequest(letter.body);
    const ownId = parsed.ok ? parsed.request.requestId : undefined;
    const requestId = ownId ?? (newMessageId ? `sqs:${newMessageId}` : undefined);
    const was =
      letter.requestId !== undefined && letter.requestId !== requestId ? letter.requestId : undefined;
    result.moved.push({
      messageId: letter.messageId,
      newMessageId,
      ...(requestId ? { requestId } : {}),
      ...(was ? { wasRequestId: was } : {}),
      ...(notDeleted !== undefined ? { notDeleted } : {}),
    });
  }
  await release(sqs, urls.dlqUrl, stillHeld);
  return result;
}
