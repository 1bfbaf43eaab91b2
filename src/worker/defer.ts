/**
 * Back-off through the queue itself: a 429 or a busy effect sets the received message's
 * visibility, so a retry waits rather than spins. (A deferred request is held in the state
 * table and released by the tick: hold.ts, release.ts.)
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { RetryLater } from './errors.js';
import type { RecordContext, RecordDeps } from './record.js';

/** The longest back-off: SQS's longest message delay, a fair bound for a visibility wait too. */
export const MAX_DELAY_SECONDS = 900;
/** SQS caps a message's visibility timeout at 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * How long a rate-limited message should stay invisible: the server's Retry-After when given
 * (plus a little jitter so a herd does not return together), else exponential in the number of
 * receives (15 s, 1 min, 4 min, then 15 min) with ±20 % jitter. Without Retry-After the 429 may
 * be the 15-min window's, spent by another client on the key: the waits before the queue's last
 * receive (`maxReceiveCount` 5, src/queue/redrive.ts) add up to more than that window (at
 * least 16 min with the jitter), so a request outlasts it instead of reaching the DLQ. (They were
 * 10, 20, 40 and 80 s: two and a half minutes.)
 */
export function rateLimitBackoffSeconds(
  retryAfterMs: number | undefined,
  receiveCount: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    return Math.min(MAX_DELAY_SECONDS, Math.ceil(retryAfterMs / 1000) + Math.floor(random() * 3));
  }
  const base = 15 * 4 ** Math.max(0, Math.min(5, receiveCount - 1));
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

/** A 429 moves the message's visibility (backing off with the receive count), never spins. */
export async function backOffIfRateLimited(
  deps: RecordDeps,
  ctx: RecordContext,
  outcome: { rateLimited?: boolean; retryAfterMs?: number | undefined },
): Promise<void> {
  if (!outcome.rateLimited) return;
  const receives = Number(ctx.record.attributes?.ApproximateReceiveCount ?? '1');
  const seconds = rateLimitBackoffSeconds(outcome.retryAfterMs, receives);
  await setVisibility(deps.sqs, deps.queueUrl, ctx.record.receiptHandle, seconds);
  ctx.log.warn('rate limited; backing off through the message visibility', { backoffSeconds: seconds });
}

/**
 * Another copy or pass is handling the request until `untilMs` (epoch ms, the worker's clock): this
 * copy comes back once that has run out, and did not fail (`otherCopy`: its last receive tells
 * nobody it was given up).
 */
export async function comeBackAfter(
  deps: RecordDeps,
  ctx: RecordContext,
  untilMs: number,
  why: string,
): Promise<never> {
  const waitSeconds = Math.ceil((untilMs - deps.clock()) / 1000) + 1;
  await setVisibility(deps.sqs, deps.queueUrl, ctx.record.receiptHandle, Math.max(1, waitSeconds));
  throw new RetryLater(why, { otherCopy: true });
}
