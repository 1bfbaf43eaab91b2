/**
 * How the worker holds a request that must wait, and lets it go when it ends: the held record
 * (src/state/held.ts) is written instead of a delayed copy on the queue, so the release tick
 * (release.ts) brings it back when its wait is over, and `held` can list it meanwhile.
 */
import { type ActionRequest, actionTarget, requesterKey } from '../actions/request.js';
import { nextQuestionLook } from '../policy/ask-channel.js';
import type { Decision } from '../policy/decide.js';
import type { Policy } from '../policy/schema.js';
import { endHold, type HeldWhy, type HoldOutcome, holdRequest } from '../state/held.js';
import type { StateTable } from '../state/table.js';

/** Why a deferred request waits. */
export function heldBecause(decision: Decision, overLimit: boolean): Exclude<HeldWhy, 'ask'> {
  if (decision.rule === 'pause') return 'paused';
  return overLimit ? 'limit' : 'window';
}

/**
 * When a held request is looked at again: a pause has no time (the tick releases it on resume);
 * a question at the next recheck, but never after the request expires.
 */
export function nextLookFor(why: HeldWhy, until: Date, policy: Policy, request: ActionRequest, now: Date) {
  if (why === 'paused') return undefined;
  if (why !== 'ask') return until;
  // The one home of a question's next look: `policy replay` follows a question by it too.
  return new Date(nextQuestionLook(policy, request, now.getTime()));
}

export async function holdFor(
  table: StateTable,
  request: ActionRequest & { requestId: string },
  /** `existing`: this copy read a held item of the request (src/state/held.ts, `holdRequest`). */
  wait: {
    why: HeldWhy;
    decision: Decision;
    nextLook: Date | undefined;
    existing?: boolean;
    /** The deciding policy's short digest (RecordDeps.policyDigest). */
    policyDigest: string;
  },
  now: Date,
): Promise<HoldOutcome> {
  return holdRequest(
    table,
    {
      requestId: request.requestId,
      action: request.action,
      target: actionTarget(request),
      requester: requesterKey(request.requestedBy),
      why: wait.why,
      rule: wait.decision.rule,
      reason: wait.decision.reason,
      since: now.toISOString(),
      request,
      ...(wait.nextLook ? { nextLook: wait.nextLook.toISOString() } : {}),
      policyDigest: wait.policyDigest,
    },
    now,
    wait.existing,
  );
}

/**
 * The asked request a person's Approve click answered: the click queues the request again as
 * `<asked id>:approved-by:<user>`, requested by that Slack user (vouched for by the webhook).
 * When that one ends, the asked request's hold ends with it.
 */
export function answeredQuestion(request: ActionRequest & { requestId: string }): string | undefined {
  if (request.requestedBy.source !== 'slack') return undefined;
  if (request.answers) return request.answers;
  // A copy queued before `answers` existed says it in its id (unless the id was hashed down).
  const suffix = `:approved-by:${request.requestedBy.id}`;
  if (!request.requestId.endsWith(suffix)) return undefined;
  const asked = request.requestId.slice(0, -suffix.length);
  return asked === '' ? undefined : asked;
}

export { endHold };
