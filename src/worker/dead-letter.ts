/**
 * Poison messages: a body that is not a valid action request (or a valid one refused before the
 * policy: an unproven requester, a future date) goes to the DLQ at once, with the original body
 * and attributes and the error (zod paths kept) beside it, audited. Only after the DLQ accepted
 * it is the original acknowledged; if the send fails, the record is retried, never dropped.
 */
import { randomUUID } from 'node:crypto';
import { type MessageAttributeValue, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { type ActionRequest, actionTarget, claimedRequestId, requesterKey } from '../actions/request.js';
import { MAX_MESSAGE_BYTES } from '../queue/message-size.js';
import { writeAudit } from '../state/audit.js';
import { claimEffect, completeEffect, releaseEffect } from '../state/effects.js';
import type { Refusal } from './admit.js';
import { RetryLater } from './errors.js';
import { currentDate, lockExpiry, type RecordDeps, type RecordResult, type RecordTiming } from './record.js';

/** SQS allows 10 message attributes; three are ours. */
const MAX_ORIGINAL_ATTRIBUTES = 7;
/** A validation error never needs more than this. */
const MAX_ERROR_BYTES = 4_000;
// A poison body near MAX_MESSAGE_BYTES (the queues' size, as the stack sets it) leaves the error less room.

/** What a message's attributes count towards its size. */
function attributeBytes(attributes: Record<string, MessageAttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '');
    bytes +=
      value.StringValue !== undefined
        ? Buffer.byteLength(value.StringValue)
        : (value.BinaryValue?.length ?? 0);
  }
  return bytes;
}

/** At most `max` bytes of `text` in UTF-8, never splitting a character. */
function truncateUtf8(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const cut = Buffer.from(text).subarray(0, Math.max(0, max)).toString('utf8');
  return cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut;
}

/** The names of the attributes the worker adds to its copy (src/queue/dead-letters.ts reads them). */
const OURS = new Set(['sourceMessageId', 'failedAt', 'error']);

/**
 * Lambda's record attributes (camelCase, base64 binary) back into the SDK's shape, but those
 * named like ours: the sender is not proven, and one of its own `sourceMessageId` written over
 * ours named the letter after another message (its request id, what `dlq` picks it by).
 */
function originalAttributes(record: SQSRecord): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  const theirs = Object.entries(record.messageAttributes ?? {}).filter(([name]) => !OURS.has(name));
  for (const [name, value] of theirs.slice(0, MAX_ORIGINAL_ATTRIBUTES)) {
    if (value.stringValue !== undefined) {
      out[name] = { DataType: value.dataType, StringValue: value.stringValue };
    } else if (value.binaryValue !== undefined) {
      out[name] = { DataType: value.dataType, BinaryValue: Buffer.from(value.binaryValue, 'base64') };
    }
  }
  return out;
}

/**
 * The DLQ copy of `record`: its body, the error, where and when it failed, and its own
 * attributes, all within one message's size. The body is kept whole (it is the evidence); the
 * error is cut to the room it leaves; when a body leaves almost none, the original attributes,
 * then ours, give way before the error does (the audit record and the log keep it all).
 */
export function deadLetterMessage(record: SQSRecord, error: string, now: Date) {
  // SQS rejects an empty body; a poison message may have had one.
  const body = record.body === '' ? '(empty body)' : record.body;
  const kept: Array<[string, MessageAttributeValue]> = [
    ['sourceMessageId', { DataType: 'String', StringValue: record.messageId }],
    ['failedAt', { DataType: 'String', StringValue: now.toISOString() }],
    ...Object.entries(originalAttributes(record)),
  ];
  const errorOverhead = attributeBytes({ error: { DataType: 'String', StringValue: '' } });
  const roomFor = () =>
    MAX_MESSAGE_BYTES - Buffer.byteLength(body) - attributeBytes(Object.fromEntries(kept)) - errorOverhead;
  while (kept.length > 0 && roomFor() < 'invalid'.length) kept.pop();
  const room = roomFor();
  const text = truncateUtf8(error, Math.min(MAX_ERROR_BYTES, room)) || 'invalid';
  return {
    MessageBody: body,
    MessageAttributes: {
      ...Object.fromEntries(kept),
      ...(room >= 'invalid'.length ? { error: { DataType: 'String', StringValue: text } } : {}),
    },
  };
}

export async function sendToDeadLetter(
  sqs: Pick<SQSClient, 'send'>,
  dlqUrl: string,
  record: SQSRecord,
  error: string,
  now: Date,
): Promise<string | undefined> {
  const out = await sqs.send(
    new SendMessageCommand({ QueueUrl: dlqUrl, ...deadLetterMessage(record, error, now) }),
  );
  return out.MessageId;
}

/** The DLQ metric's reason for a refusal's rule (an invalid body has none). */
function dlqReasonOf(rule: string): 'not-proven' | 'future-dated' | 'invalid' {
  // An id another requester holds (or derives) is a claim the sender cannot prove either.
  if (rule === 'requester-not-proven' || rule === 'request-id-reserved' || rule === 'request-id-taken')
    return 'not-proven';
  return rule === 'requested-in-future' ? 'future-dated' : 'invalid';
}

/**
 * Sends `record` to the DLQ once, however often it is delivered: claimed like an effect, so a
 * redelivered copy is not dead-lettered twice, while a worker that dies between claim and send
 * leaves a lock that expires (the copy then sends it).
 */
export async function deadLetterRecord(
  deps: RecordDeps,
  record: SQSRecord,
  error: string,
  timing: RecordTiming,
  /** A valid body refused before the policy (unproven requester, future date); else invalid. */
  refused?: Refusal & { request: ActionRequest },
): Promise<RecordResult> {
  const effect = `dead-letter#${record.messageId}`;
  const owner = `${record.messageId}/${randomUUID()}`;
  const claim = await claimEffect(deps.table, effect, {
    owner,
    lockExpiresAt: lockExpiry(deps, timing),
    nowMs: deps.clock(),
  });
  if (!claim.claimed) {
    if (claim.state.status === 'completed') return 'dead-lettered';
    throw new RetryLater(`message ${record.messageId} is being dead-lettered by another copy`, {
      otherCopy: true,
    });
  }
  const now = currentDate(deps);
  let dlqMessageId: string | undefined;
  try {
    dlqMessageId = await sendToDeadLetter(deps.sqs, deps.dlqUrl, record, error, now);
  } catch (sendError) {
    // The DLQ did not take it: the record is retried, never dropped.
    await releaseEffect(deps.table, effect, owner);
    throw sendError;
  }
  const request = refused?.request;
  const requestId = request?.requestId ?? `sqs:${record.messageId}`;
  const reason = refused ? refused.reason : `not a valid action request: ${error}`;
  const rule = refused?.rule ?? 'validation';
  // An invalid body's id, or the id of a body whose requester is not proven, is a claim: never the
  // lines' `requestId` (they would join another request's story), but written beside it, so the
  // query by the id its producer knows finds the line (only an id of the request id syntax).
  const unproven = !refused || refused.rule === 'requester-not-proven';
  const claimed = unproven ? claimedRequestId(record.body) : undefined;
  const lineId = unproven ? `sqs:${record.messageId}` : requestId;
  await Promise.all([
    completeEffect(
      deps.table,
      effect,
      owner,
      {
        result: 'dead-lettered',
        reason,
        rule,
        requestId,
        at: now.toISOString(),
      },
      now,
    ),
    writeAudit(deps.table, {
      requestId,
      at: now,
      action: request?.action ?? 'unknown',
      target: request ? actionTarget(request) : 'unknown',
      effectKey: effect,
      // What the message claimed: refused, so never trusted, but worth seeing in the trail (the
      // prefix keeps it out of the id's own story: src/audit/story.ts).
      requester: request ? `unproven ${requesterKey(request.requestedBy)}` : 'unknown',
      rule,
      reason,
      result: 'dead-lettered',
      dryRun: false,
      messageId: record.messageId,
    }),
  ]);
  const dlqReason = dlqReasonOf(rule);
  const properties = { requestId: lineId, messageId: record.messageId };
  deps.metrics.put('DeadLettered', 1, { Reason: dlqReason }, properties);
  deps.metrics.put('Decisions', 1, { Action: request?.action ?? 'unknown', Outcome: dlqReason }, properties);
  deps.logger.warn(
    refused ? 'refused action request sent to the DLQ' : 'invalid action request sent to the DLQ',
    {
      result: 'dead-lettered',
      requestId: lineId,
      ...(claimed ? { claimedRequestId: claimed } : {}),
      messageId: record.messageId,
      dlqMessageId,
      ...(refused ? { rule, reason } : { error }),
    },
  );
  return 'dead-lettered';
}
