/**
 * Poison messages: a body that is not a valid action request goes to the DLQ at once, with the
 * original body and attributes and the validation error (zod paths kept) beside it. Only after
 * the DLQ accepted it is the original acknowledged; if the send fails, the caller fails the
 * record, so a bad message is never dropped.
 */
import { type MessageAttributeValue, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** SQS allows 10 message attributes; three are ours. */
const MAX_ORIGINAL_ATTRIBUTES = 7;
/** An attribute value is part of the 256 KiB message; a validation error never needs more than this. */
const MAX_ERROR_CHARS = 4_000;

/** Lambda's record attributes (camelCase, base64 binary) back into the SDK's shape. */
function originalAttributes(record: SQSRecord): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(record.messageAttributes ?? {}).slice(
    0,
    MAX_ORIGINAL_ATTRIBUTES,
  )) {
    if (value.stringValue !== undefined) {
      out[name] = { DataType: value.dataType, StringValue: value.stringValue };
    } else if (value.binaryValue !== undefined) {
      out[name] = { DataType: value.dataType, BinaryValue: Buffer.from(value.binaryValue, 'base64') };
    }
  }
  return out;
}

export async function sendToDeadLetter(
  sqs: Pick<SQSClient, 'send'>,
  dlqUrl: string,
  record: SQSRecord,
  error: string,
  now: Date,
): Promise<string | undefined> {
  const out = await sqs.send(
    new SendMessageCommand({
      QueueUrl: dlqUrl,
      // SQS rejects an empty body; a poison message may have had one.
      MessageBody: record.body === '' ? '(empty body)' : record.body,
      MessageAttributes: {
        ...originalAttributes(record),
        error: { DataType: 'String', StringValue: error.slice(0, MAX_ERROR_CHARS) || 'invalid' },
        sourceMessageId: { DataType: 'String', StringValue: record.messageId },
        failedAt: { DataType: 'String', StringValue: now.toISOString() },
      },
    }),
  );
  return out.MessageId;
}
