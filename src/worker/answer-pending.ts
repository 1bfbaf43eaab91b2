/**
 * A question answered in time waits for its answer past its expiry. An Approve click (refused past
 * the expiry) marks the held question answered (src/state/held-answer.ts) and queues the clicker's
 * copy, which ends the question with its own outcome (answered.ts). The question's own look just
 * past its expiry (the release tick sends it back) was denied as expired by the worker while that
 * copy was still on its way (a back-off, a backlog), and the copy then found the question ended and
 * told the clicker that denial for an approval made in time. So past its expiry the tick leaves an
 * answered question held while its answer's copy may be alive, and looks each minute: the copy ends
 * it. A look the tick sent back before the click that reaches the worker only past the expiry is
 * held again by the worker (wait.ts `awaitAnswer`), not denied. A copy given up takes the mark off (the question is open again) and the next look denies it
 * as expired, as does the first look once no copy can still be on the queue (one gone silently:
 * its worker died, it sits in the DLQ). A cancel, and a Deny (refused once answered), are as before.
 */

import { requestExpiresAt } from '../policy/decide.js';
import type { Policy } from '../policy/schema.js';
import { MAX_RECEIVE_COUNT, QUEUE_VISIBILITY_SECONDS } from '../queue/redrive.js';
import type { HeldRecord } from '../state/held.js';
import { MAX_DELAY_SECONDS } from './defer.js';

/**
 * The longest an answer's copy stays alive on the actions queue after the click: each of its
 * receives waits at most a visibility timeout (a failure that set none) or the longest back-off,
 * and after `maxReceiveCount` receives (the deployed one: a stack may raise it) SQS moves it to the DLQ.
 */
export const answerCopyLifeMs = (maxReceiveCount = MAX_RECEIVE_COUNT) =>
  maxReceiveCount * (QUEUE_VISIBILITY_SECONDS + MAX_DELAY_SECONDS) * 1000;

/**
 * True when `held` is a question past its expiry that an Approve click answered before it, and
 * whose copy may still come and end it: not sent back (where the worker would deny it as expired),
 * nor ended as expired, now. Only past the expiry: before it, a look decides the question as the
 * copy would be decided. A cancel is never held back by it (the worker ends it as cancelled).
 * Without a policy (no `maxDeferHours` to judge by) nothing is held back.
 */
export function answerPendingPastExpiry(
  held: HeldRecord,
  policy: Policy | undefined,
  now: Date,
  maxReceiveCount?: number,
): boolean {
  if (!policy || held.why !== 'ask' || !held.answeredBy || held.cancel) return false;
  const expiresAt = requestExpiresAt(policy, held.request).getTime();
  const answeredAt = Date.parse(held.answeredAt ?? '');
  if (!(answeredAt <= expiresAt) || now.getTime() <= expiresAt) return false;
  return now.getTime() < answeredAt + answerCopyLifeMs(maxReceiveCount);
}
