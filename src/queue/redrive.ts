/**
 * The actions queue's redrive policy, one number for everything that must agree on it: the CDK
 * stack's queue (infra/autopilot-stack.ts), the local stack's emulated queue (src/local), and the
 * worker, which tells a request's people when a failing record is on its last receive before SQS
 * moves it to the DLQ (src/worker/give-up.ts). The stack passes it to the worker as
 * `MAX_RECEIVE_COUNT`, so a changed redrive policy and the worker never disagree.
 */
import type { SQSRecord } from 'aws-lambda';

/** Receives of one message before SQS moves it to the DLQ (the redrive policy's `maxReceiveCount`). */
export const MAX_RECEIVE_COUNT = 5;

/**
 * The actions queue's visibility timeout (the stack's `QUEUE_VISIBILITY`: six times the worker's
 * 60-s timeout, Lambda's guidance): how long a record that failed without setting its own
 * visibility waits before it is received again. The worker counts such a copy as live that long.
 */
export const QUEUE_VISIBILITY_SECONDS = 360;

/** The worker's environment variable carrying the queue's `maxReceiveCount` (set by the stacks). */
export const MAX_RECEIVE_COUNT_VARIABLE = 'MAX_RECEIVE_COUNT';

/** SQS accepts a `maxReceiveCount` from 1 to 1000. */
export const MAX_RECEIVE_COUNT_RANGE = { min: 1, max: 1000 } as const;

/** How often SQS has delivered this message, this delivery included (at least 1). */
export function receivesOf(record: Pick<SQSRecord, 'attributes'>): number {
  const receives = Number(record.attributes?.ApproximateReceiveCount ?? '1');
  return Number.isFinite(receives) && receives >= 1 ? receives : 1;
}

/** This delivery is the last: if it fails, SQS moves the message to the DLQ instead of delivering it again. */
export function isLastReceive(record: Pick<SQSRecord, 'attributes'>, maxReceiveCount: number): boolean {
  return receivesOf(record) >= maxReceiveCount;
}
