/**
 * An `ask` with no one to ask. The policy may answer "ask a person", but the question goes to
 * the notifications channel: where none is set (no `slackWebhookUrl` in the worker's secret or
 * the policy), the worker denies the request instead. The worker (src/worker/wait.ts) and
 * `policy replay` both turn the policy's answer into what was done here, so that replaying the
 * policy that made a denial for want of a channel does not report it as a change.
 */
import type { Decision } from './decide.js';

/** The words a denial for want of a channel adds to the rule's reason (audit records keep them). */
export const NO_CHANNEL_WORDS =
  'but no notifications channel (slackWebhookUrl) is set to ask in, so it is denied';

/** The decision as carried out: an `ask` where no channel is set is a denial (same rule, same dry run). */
export function askedWhere(decision: Decision, channel: boolean): Decision {
  if (decision.outcome !== 'ask' || channel) return decision;
  return { ...decision, outcome: 'deny', reason: `${decision.reason}; ${NO_CHANNEL_WORDS}` };
}
