/**
 * When the chaos run (src/local/chaos.ts) may say its queue "did not drain in time". A message can
 * rightly stay on the queue for as long as the worker's own schedule keeps it there: up to
 * `maxReceiveCount` receives, each running up to the function timeout and then waiting out the
 * longest of the queue's visibility timeout, the 429 back-off of that receive (src/worker/defer.ts,
 * whose last one is waited out before SQS moves the message to the DLQ) and a lease another copy or
 * a dead invocation holds (the timeout plus the lock margin). A fixed 150-s deadline was shorter
 * than that: a quiet run whose two messages were still in their back-off failed with every check
 * passing. So the deadline is computed from the worker's schedule (its function, not a copy of its
 * numbers), counted from the last message's first delivery: until then the backlog is still being
 * taken, and the run's own allowance for it (`drainTimeoutMs`) holds.
 */

import { MAX_RECEIVE_COUNT } from '../queue/redrive.js';
import { rateLimitBackoffSeconds } from '../worker/defer.js';
import { CHAOS_LOCK_MARGIN_MS, CHAOS_RATE_LIMIT_BASE_SECONDS } from './chaos-worker.js';
import type { SqsHandler } from './event-source.js';
import { queueDepth } from './event-source.js';
import type { LocalStack } from './stack.js';

export interface WorkerSchedule {
  maxReceiveCount: number;
  functionTimeoutMs: number;
  visibilityTimeoutSeconds: number;
  lockMarginMs: number;
  rateLimitBaseSeconds: number;
  /** The Retry-After the sandbox's 429s carry (seconds), if any. */
  retryAfterSeconds?: number | undefined;
}

/** The longest time one message can rightly spend on the queue, first receive to its end or the DLQ. */
export function longestMessageLifeMs(s: WorkerSchedule): number {
  // The jitter at its top (random just below 1): the longest wait each receive can draw.
  const top = () => 1 - Number.EPSILON;
  const retryAfterMs = s.retryAfterSeconds === undefined ? undefined : s.retryAfterSeconds * 1000;
  const leaseMs = s.functionTimeoutMs + s.lockMarginMs;
  let total = 0;
  for (let receive = 1; receive <= s.maxReceiveCount; receive++) {
    // The longer of the two 429s: with and without Retry-After (the sandbox sends both kinds' worth).
    const backoffMs =
      1000 *
      Math.max(
        rateLimitBackoffSeconds(undefined, receive, top, s.rateLimitBaseSeconds),
        rateLimitBackoffSeconds(retryAfterMs, receive, top, s.rateLimitBaseSeconds),
      );
    total += s.functionTimeoutMs + Math.max(s.visibilityTimeoutSeconds * 1000, backoffMs, leaseMs);
  }
  return total;
}

/** One message's longest life in the chaos run: its worker's margins and back-off, its queue's redrive. */
export function chaosMessageLifeMs(
  functionTimeoutMs: number,
  visibilityTimeoutSeconds: number,
  retryAfterSeconds: number | null | undefined,
): number {
  return longestMessageLifeMs({
    maxReceiveCount: MAX_RECEIVE_COUNT,
    functionTimeoutMs,
    visibilityTimeoutSeconds,
    lockMarginMs: CHAOS_LOCK_MARGIN_MS,
    rateLimitBaseSeconds: CHAOS_RATE_LIMIT_BASE_SECONDS,
    retryAfterSeconds: retryAfterSeconds ?? undefined,
  });
}

/** When the drain gives up: the backlog's allowance, or the last first delivery plus one message's longest life. */
export function drainDeadline(input: {
  drainStartedAt: number;
  backlogAllowanceMs: number;
  lastFirstDeliveryAt: number | undefined;
  messageLifeMs: number;
}): number {
  const backlog = input.drainStartedAt + input.backlogAllowanceMs;
  if (input.lastFirstDeliveryAt === undefined) return backlog;
  return Math.max(backlog, input.lastFirstDeliveryAt + input.messageLifeMs);
}

/** Notes when each message (by SQS message id) is first handed to the worker. */
export function firstDeliveries(handler: SqsHandler, now: () => number = Date.now) {
  const seen = new Set<string>();
  const state: { last: number | undefined } = { last: undefined };
  const wrapped: SqsHandler = (event, context) => {
    for (const r of event.Records)
      if (!seen.has(r.messageId)) {
        seen.add(r.messageId);
        state.last = now();
      }
    return handler(event, context);
  };
  return { handler: wrapped, lastFirstDeliveryAt: () => state.last };
}

/** Polls until the queue stays empty twice in a row, or the deadline (read again at each poll); true when drained. */
export async function drainQueue(
  stack: LocalStack,
  deadline: () => number,
  report: (depth: number) => void,
): Promise<boolean> {
  let quiet = 0;
  let lastReport = 0;
  while (Date.now() < deadline()) {
    const depth = await queueDepth(stack.emulators.sqs, stack.endpoints.queueUrl);
    quiet = depth === 0 ? quiet + 1 : 0;
    if (quiet >= 2) return true;
    if (Date.now() - lastReport > 5_000) {
      lastReport = Date.now();
      report(depth);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
