/**
 * The release tick: a short periodic step (an EventBridge rule every minute invokes the worker's
 * function with a scheduled event; the local stack runs the same step on a timer) that sends
 * held requests back to the queue when their wait is over: every paused request once the pause
 * is lifted, a window or limit wait at its next look, an unanswered question at its next look.
 * A request waiting three days therefore costs one held record and one message, not a delayed
 * message every 15 minutes. A released copy keeps its request id: the final record and the
 * effect claim still make a release that races another copy one API call at most.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RequesterSigner } from '../actions/proof.js';
import { effectKey } from '../actions/request.js';
import { sendActionRequest } from '../queue/actions-queue.js';
import { writeAudit } from '../state/audit.js';
import { type HeldRecord, isStuck, listHeld } from '../state/held.js';
import { keepHeldThroughPause } from '../state/held-keep.js';
import { markReleased, unmarkReleased } from '../state/held-release.js';
import { readPause } from '../state/pause.js';
import { forEachBounded } from '../util/pool.js';
import { endStuckCancelled, endStuckExpired, type StuckDeps } from './stuck.js';

/** A released copy that never came back (lost, or its worker crashed) is sent again after this long. */
export const RELEASE_RETRY_MS = 15 * 60_000;

/** The tick's deps: the stuck-wait endings' (stuck.ts: table, logger, where to tell, policy, metrics), and the queue. */
export interface ReleaseDeps extends StuckDeps {
  sqs: Pick<SQSClient, 'send'>;
  queueUrl: string;
  /** Vouches for the copy as the original was vouched for (the worker holds every signer's key). */
  signer?: RequesterSigner;
}

export interface ReleaseSummary {
  held: number;
  released: string[];
  /** Stuck waits ended here, as no copy of them comes back: cancelled, or past their expiry. */
  ended: string[];
  /** Due, but their send failed: still held, sent again by a later tick (the handler fails the tick for them). */
  notReleased: string[];
  paused: boolean;
}

/**
 * True when `held` should be sent back now: a cancelled one at once (the worker ends it), the
 * others when their wait is over. While paused nothing else is: it would only be held again.
 */
export function isDue(held: HeldRecord, paused: boolean, now: Date): boolean {
  if (isStuck(held)) return false;
  if (held.releasedAt && now.getTime() - Date.parse(held.releasedAt) < RELEASE_RETRY_MS) return false;
  if (held.cancel) return true;
  if (paused) return false;
  if (held.why === 'paused') return true;
  return held.nextLook !== undefined && Date.parse(held.nextLook) <= now.getTime();
}

function releaseReason(held: HeldRecord): string {
  if (held.cancel) return `cancelled by ${held.cancel.by}: sent back so that the worker ends it`;
  return held.why === 'paused'
    ? 'automation was resumed: the request held by the pause is looked at again'
    : `its next look (${held.nextLook}) has come: the request is looked at again`;
}

export async function releaseHeld(deps: ReleaseDeps, now: Date): Promise<ReleaseSummary> {
  const [pause, held] = await Promise.all([readPause(deps.table), listHeld(deps.table)]);
  const ended = [
    ...(await endStuckCancelled(deps, held, now)),
    ...(await endStuckExpired(deps, held, now, pause.paused)),
  ];
  const due = held.filter((record) => isDue(record, pause.paused, now));
  const released: string[] = [];
  const notReleased: string[] = [];
  await forEachBounded(due, 5, async (record) => {
    // Marked first: a second tick running at the same time leaves it to this one.
    if (!(await markReleased(deps.table, record, now))) return;
    let messageId: string;
    try {
      messageId = await sendActionRequest(deps.sqs, deps.queueUrl, record.request, {
        ...(deps.signer ? { signer: deps.signer } : {}),
      });
    } catch (error) {
      // Still held and marked: a later tick sends it again (RELEASE_RETRY_MS); the others go on.
      await unmarkReleased(deps.table, record, now).catch(() => {});
      deps.logger.error('held request not released', { requestId: record.requestId, error });
      notReleased.push(record.requestId);
      return;
    }
    released.push(record.requestId);
    await writeAudit(deps.table, {
      requestId: record.requestId,
      at: now,
      action: record.action,
      target: record.target,
      effectKey: effectKey(record.request),
      requester: record.requester,
      rule: 'release',
      reason: releaseReason(record),
      result: 'released',
      dryRun: false,
      messageId,
    });
    deps.logger.info('held request released', { requestId: record.requestId, why: record.why, messageId });
  });
  // Paused, nothing is held again by a worker: the records' own clean-up must not end them (held-keep.ts).
  if (pause.paused) await keepHeldThroughPause(deps.table, now);
  return { held: held.length, released, ended, notReleased, paused: pause.paused };
}
