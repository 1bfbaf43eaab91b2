/**
 * A poison body near SQS's message size limit still reaches the DLQ with its error: the copy's
 * body and attributes, counted as SQS counts them, never pass the limit, and the error keeps as
 * much of its text as the body leaves room for. (The SQS emulator does not enforce the limit,
 * so the size is checked here, with its own count.)
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../src/queue/message-size.js';
import { deadLetterMessage } from '../../src/worker/dead-letter.js';

const NOW = new Date('2026-11-23T10:00:00Z');

function record(body: string): SQSRecord {
  return {
    messageId: '5c1e6f5e-0000-4000-8000-000000000001',
    receiptHandle: 'r',
    body,
    attributes: {} as SQSRecord['attributes'],
    messageAttributes: {
      action: {
        dataType: 'String',
        stringValue: 'approve_phase',
        stringListValues: [],
        binaryListValues: [],
      },
      requester: { dataType: 'String', stringValue: 'ci:deploy', stringListValues: [], binaryListValues: [] },
    },
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-central-1:123456789012:actions',
    awsRegion: 'eu-central-1',
  };
}

/** SQS's count: the body, and each attribute's name, data type and value, in bytes. */
function sizeOf(message: ReturnType<typeof deadLetterMessage>): number {
  let bytes = Buffer.byteLength(message.MessageBody);
  const attributes: Record<string, { DataType?: string; StringValue?: string; BinaryValue?: Uint8Array }> =
    message.MessageAttributes;
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '');
    bytes += Buffer.byteLength(value.StringValue ?? '') + (value.BinaryValue?.length ?? 0);
  }
  return bytes;
}

const ERROR = `invalid action request: ${'triggerId: expected string; '.repeat(300)}`;

describe('the DLQ copy of a poison message', () => {
  it('keeps the whole error (up to 4000 bytes) and the original attributes beside a small body', () => {
    const message = deadLetterMessage(record('{"version":1}'), 'version: expected 1 · é', NOW);
    expect(message.MessageAttributes.error?.StringValue).toBe('version: expected 1 · é');
    expect(Object.keys(message.MessageAttributes).sort()).toEqual([
      'action',
      'error',
      'failedAt',
      'requester',
      'sourceMessageId',
    ]);
    const long = deadLetterMessage(record('{}'), ERROR, NOW).MessageAttributes.error?.StringValue ?? '';
    expect(Buffer.byteLength(long)).toBe(4000);
    expect(ERROR.startsWith(long)).toBe(true);
  });

  it('cuts the error to the room a large body leaves, never past the limit', () => {
    for (const left of [3000, 500, 120, 60, 0]) {
      const body = 'x'.repeat(MAX_MESSAGE_BYTES - left);
      const message = deadLetterMessage(record(body), ERROR, NOW);
      expect(message.MessageBody).toBe(body);
      expect(sizeOf(message), `with ${left} bytes left by the body`).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      // Only a body that fills the message alone leaves no room for the error (the audit keeps it).
      const error = (message.MessageAttributes as Record<string, { StringValue?: string }>).error
        ?.StringValue;
      if (left === 0) expect(error).toBeUndefined();
      else expect(error && ERROR.startsWith(error)).toBeTruthy();
    }
  });

  it('never splits a character when it cuts', () => {
    const message = deadLetterMessage(record('x'.repeat(MAX_MESSAGE_BYTES - 400)), 'é'.repeat(500), NOW);
    const error = message.MessageAttributes.error?.StringValue ?? '';
    expect(error).toMatch(/^é+$/);
    expect(sizeOf(message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });
});
