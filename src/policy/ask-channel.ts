/**
 * An `ask` that cannot be asked. The policy may answer "ask a person", but the question goes to
 * the notifications channel with the request in its Approve/Deny buttons: where no channel is set
 * (no `slackWebhookUrl` in the worker's secret or the policy), or the request is too large for the
 * buttons' value (src/slack/button-value.ts), the worker denies the request instead. The worker
 * (src/worker/wait.ts) and `policy replay` both turn the policy's answer into what was done here,
 * so that replaying the policy that made such a denial does not report it as a change. A question
 * asked is looked at again (decided afresh) every hour until someone answers it or the policy's
 * answer changes; when, is said here too, for the worker (src/worker/hold.ts) and the replay's
 * following of a question (src/policy/replay.ts) alike.
 */
import type { ActionRequest } from '../actions/request.js';
import { buttonRequest } from '../slack/button-value.js';
import { type Decision, requestExpiresAt } from './decide.js';
import type { Policy } from './schema.js';

/** An unanswered question is looked at again this often (a Deny or an approval elsewhere ends it). */
export const ASK_RECHECK_MS = 60 * 60_000;

/**
 * When a question asked at `at` (epoch ms) is looked at again: an hour later, but never after the
 * request expires (just past the expiry, when the look denies it).
 */
export function nextQuestionLook(policy: Policy, request: Omit<ActionRequest, 'reply'>, at: number): number {
  const expires = requestExpiresAt(policy, request as ActionRequest).getTime();
  return Math.min(expires + 1000, at + ASK_RECHECK_MS);
}

/** The words a denial for want of a channel adds to the rule's reason (audit records keep them). */
export const NO_CHANNEL_WORDS =
  'but no notifications channel (slackWebhookUrl) is set to ask in, so it is denied';

/** The words a denial of a request the buttons cannot carry adds to the rule's reason. */
export const TOO_LARGE_WORDS = 'but the request is too large to carry in Slack buttons, so it is denied';

/**
 * The decision as carried out: an `ask` where no channel is set, or whose request (the reply URL
 * left out, as the audit trail keeps it) the buttons cannot carry, is a denial (same rule, same dry run).
 */
export function askedWhere(
  decision: Decision,
  channel: boolean,
  request: Omit<ActionRequest, 'reply'>,
): Decision {
  if (decision.outcome !== 'ask') return decision;
  if (!channel) return { ...decision, outcome: 'deny', reason: `${decision.reason}; ${NO_CHANNEL_WORDS}` };
  if (buttonRequest(request as ActionRequest)) return decision;
  return { ...decision, outcome: 'deny', reason: `${decision.reason}; ${TOO_LARGE_WORDS}` };
}
