/**
 * Deferral and back-off through the queue itself. A deferred request is sent again, unchanged
 * (same body, `requestedAt` and `requestId`, so `maxDeferHours` counts from the first ask), with
 * a delay of at most 900 s (the SQS maximum): it comes back until its window opens. A 429 or a
 * busy effect sets the received message's visibility instead, so a retry waits rather than spins.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RequesterSigner } from '../actions/proof.js';
import type { ActionRequest } from '../actions/request.js';
import { sendActionRequest } from '../queue/actions-queue.js';

export const MAX_DELAY_SECONDS = 900;
/** SQS caps a message's visibility timeout at 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;

/** Seconds to wait before looking at a deferred request again: 1..900. */
export function deferDelaySeconds(deferUntil: Date, now: Date): number {
  const seconds = Math.ceil((deferUntil.getTime() - now.getTime()) / 1000);
  return Math.max(1, Math.min(MAX_DELAY_SECONDS, seconds));
}

export async function deferRequest(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  request: ActionRequest,
  deferUntil: Date,
  now: Date,
  /** Vouches for the copy as the original was vouched for (the worker holds every signer's key). */
  signer?: RequesterSigner,
): Promise<{ messageId: string; delaySeconds: number }> {
  const delaySeconds = deferDelaySeconds(deferUntil, now);
  const messageId = await sendActionRequest(sqs, queueUrl, request, {
    delaySeconds,
    ...(signer ? { signer } : {}),
  });
  return { messageId, delaySeconds };
}

/**
 * How long a rate-limited message should stay invisible: the server's Retry-After when given
 * (plus a little jitter so a herd does not return together), else exponential in the number of
 * receives (10 s, 20 s, 40 s ... up to 900 s) with ±20 % jitter.
 */
export function rateLimitBackoffSeconds(
  retryAfterMs: number | undefined,
  receiveCount: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    return Math.min(MAX_DELAY_SECONDS, Math.ceil(retryAfterMs / 1000) + Math.floor(random() * 3));
  }
  const base = 10 * 2 ** Math.max(0, Math.min(10, receiveCount - 1));
  const jittered = base * (0.8 + 0.4 * random());
  return Math.max(1, Math.min(MAX_DELAY_SECONDS, Math.round(jittered)));
}

export async function setVisibility(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  receiptHandle: string,
  seconds: number,
): Promise<void> {
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: Math.max(0, Math.min(MAX_VISIBILITY_SECONDS, Math.round(seconds))),
    }),
  );
}
