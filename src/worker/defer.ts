/**
 * Back-off through the queue itself: a 429 or a busy effect sets the received message's
 * visibility, so a retry waits rather than spins. (A deferred request is held in the state
 * table and released by the tick: hold.ts, release.ts.)
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isLastReceive, receivesOf } from '../queue/redrive.js';
import { RetryLater, type RetryLaterOptions } from './errors.js';
import type { RecordContext, RecordDeps } from './record.js';

/** The longest back-off: SQS's longest message delay, a fair bound for a visibility wait too. */
export const MAX_DELAY_SECONDS = 900;
/** The first receive's back-off after a 429 without Retry-After (or with a shorter one). */
export const RATE_LIMIT_BASE_SECONDS = 15;
/** SQS caps a message's visibility timeout at 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * How long a rate-limited message should stay invisible: exponential in the number of receives
 * (15 s, 1 min, 4 min, then 15 min) with ±20 % jitter, or the server's Retry-After when that is
 * longer (plus a little jitter so a herd does not return together). Without Retry-After the 429
 * may be the 15-min window's, spent by another client on the key: the waits before the queue's
 * last receive (`maxReceiveCount` 5, src/queue/redrive.ts) add up to more than that window (at
 * least 16 min with the jitter), so a request outlasts it instead of reaching the DLQ. (They were
 * 10, 20, 40 and 80 s: two and a half minutes.)
 *
 * From the second receive on, a shorter Retry-After does not shorten that schedule: the message
 * waited it and was refused again, so it has proven wrong. Believed, a gateway answering every 429
 * with `Retry-After: 0` made the message visible again after 0–2 s, and the receives before the
 * DLQ passed in seconds inside the window that refused them: the request was given up.
 */
export function rateLimitBackoffSeconds(
  retryAfterMs: number | undefined,
  receiveCount: number,
  random: () => number = Math.random,
  baseSeconds = RATE_LIMIT_BASE_SECONDS,
): number {
  const base = baseSeconds * 4 ** Math.max(0, Math.min(5, receiveCount - 1));
  const jittered = base * (0.8 + 0.4 * random());
  const schedule = Math.max(1, Math.min(MAX_DELAY_SECONDS, Math.round(jittered)));
  if (retryAfterMs === undefined || !(retryAfterMs >= 0)) return schedule;
  const asked = Math.min(MAX_DELAY_SECONDS, Math.ceil(retryAfterMs / 1000) + Math.floor(random() * 3));
  // The first refusal's Retry-After is taken at its word (the 10-s window's wait is often a second or
  // two, and the schedule's 15 s would waste the window); a message refused again after waiting it
  // has shown the word short, and the schedule, which outlasts the 15-min window, is the floor.
  return receiveCount <= 1 ? asked : Math.max(schedule, asked);
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

/**
 * Puts the received message back for `seconds` (its visibility), and notes that on the record's
 * context: a copy that fails now registers as live until then (give-up.ts).
 */
export async function putBack(deps: RecordDeps, ctx: RecordContext, seconds: number): Promise<void> {
  await setVisibility(deps.sqs, deps.queueUrl, ctx.record.receiptHandle, seconds);
  ctx.putBackSeconds = seconds;
}

/**
 * A 429 moves the message's visibility (backing off with the receive count, or a longer
 * Retry-After), never spins. Not on the last receive: the message is not received again but moved
 * to the DLQ, where its give-up says it waits (give-up.ts makes it visible at once); backed off,
 * it stayed in the actions queue for up to 15 minutes, out of `dlq list` and the DLQ alarm.
 */
export async function backOffIfRateLimited(
  deps: RecordDeps,
  ctx: RecordContext,
  outcome: { rateLimited?: boolean; retryAfterMs?: number | undefined },
): Promise<void> {
  if (!outcome.rateLimited || isLastReceive(ctx.record, deps.maxReceiveCount)) return;
  const receives = receivesOf(ctx.record);
  const seconds = rateLimitBackoffSeconds(
    outcome.retryAfterMs,
    receives,
    Math.random,
    deps.rateLimitBaseSeconds ?? RATE_LIMIT_BASE_SECONDS,
  );
  await putBack(deps, ctx, seconds);
  ctx.log.warn('rate limited; backing off through the message visibility', { backoffSeconds: seconds });
}

/**
 * Another copy or pass is handling the request until `untilMs` (epoch ms, the worker's clock): this
 * copy comes back once that has run out, and did not fail (`otherCopy`: its last receive tells
 * nobody it was given up). A wait on another request's hold is this copy's own failure: the caller
 * says so with `failure` (no `otherCopy`), and its last receive tells the give-up.
 */
export async function comeBackAfter(
  deps: RecordDeps,
  ctx: RecordContext,
  untilMs: number,
  why: string,
  failure: RetryLaterOptions = { otherCopy: true },
): Promise<never> {
  const waitSeconds = Math.ceil((untilMs - deps.clock()) / 1000) + 1;
  await putBack(deps, ctx, Math.max(1, waitSeconds));
  throw new RetryLater(why, failure);
}
