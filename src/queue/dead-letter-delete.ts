/**
 * Deleting chosen messages from the dead-letter queue for good: the ones that must never run
 * (a forged request, one another queue moved here, which the redrive refuses) and would
 * otherwise keep `DeadLetterQueueNotEmpty` firing. Only messages this reader still holds are
 * deleted: each is held again first, as the redrive does, because SQS may accept a delete with
 * an old receipt handle even after another reader received the message meanwhile.
 */
import { DeleteMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type DeadLetter, holdAgain } from './dead-letters.js';

export interface DeleteResult {
  /** Message ids deleted. */
  deleted: string[];
  /** Not deleted, each with why; still in the DLQ. */
  failed: Array<{ messageId: string; error: string }>;
}

export async function deleteLetters(
  sqs: Pick<SQSClient, 'send'>,
  dlqUrl: string,
  letters: DeadLetter[],
): Promise<DeleteResult> {
  const result: DeleteResult = { deleted: [], failed: [] };
  for (const letter of letters) {
    if (!(await holdAgain(sqs, dlqUrl, letter))) {
      result.failed.push({
        messageId: letter.messageId,
        error:
          'no longer held (its hold ended, or another reader has it): not deleted; run the command again',
      });
      continue;
    }
    try {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: dlqUrl, ReceiptHandle: letter.receiptHandle }));
      result.deleted.push(letter.messageId);
    } catch (error) {
      // Visible again once the hold ends.
      result.failed.push({ messageId: letter.messageId, error: (error as Error).message });
    }
  }
  return result;
}
