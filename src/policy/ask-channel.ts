/**
 * An `ask` that cannot be asked. The policy may answer "ask a person", but the question goes to
 * the notifications channel with the request in its Approve/Deny buttons: where no channel is set
 * (no `slackWebhookUrl` in the worker's secret or the policy), or the request is too large for the
 * buttons' value (src/slack/button-value.ts), the worker denies the request instead. The worker
 * (src/worker/wait.ts), `policy replay`, `policy test` and `policy explain` all turn the policy's
 * answer into what was (or would be) done here, so that replaying the policy that made such a
 * denial does not report it as a change, and a case or an explanation shows what production does.
 * A question asked is looked at again (decided afresh) every hour until someone answers it or the
 * policy's answer changes; when, is said here too, for the worker (src/worker/hold.ts) and the
 * replay's following of a question (src/policy/replay.ts) alike.
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

/** Why the worker does not ask a question the policy asks: no channel, or a request too large. */
export type NotAsked = 'no-channel' | 'too-large';

/** A few words for a table cell (`policy test`): why the question is not asked. */
export const NOT_ASKED_SHORT: Record<NotAsked, string> = {
  'no-channel': 'no channel',
  'too-large': 'too large for the buttons',
};

const NOT_ASKED_WORDS: Record<NotAsked, string> = {
  'no-channel': NO_CHANNEL_WORDS,
  'too-large': TOO_LARGE_WORDS,
};

/** Why an `ask` of `request` is not asked where `channel` tells whether one is set; undefined: it is asked. */
function notAskedBecause(channel: boolean, request: Omit<ActionRequest, 'reply'>): NotAsked | undefined {
  if (!channel) return 'no-channel';
  return buttonRequest(request as ActionRequest) ? undefined : 'too-large';
}

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
  const why = notAskedBecause(channel, request);
  if (!why) return decision;
  return { ...decision, outcome: 'deny', reason: `${decision.reason}; ${NOT_ASKED_WORDS[why]}` };
}

/**
 * The id the worker gives a request that comes without one, `sqs:` and the message's UUID
 * (src/worker/process-record.ts): a stand-in of its length, so that the buttons' value is
 * measured before deploy as the worker measures it.
 */
const WORKER_ID_STAND_IN = 'sqs:00000000-0000-0000-0000-000000000000';

/** A decision before deploy (`policy test`, `policy explain`) as the deployed worker carries it out. */
export interface AsDeployed {
  /** What the worker does: the policy's decision, or the denial of an `ask` it cannot ask. */
  decision: Decision;
  /** Set when the policy asks and the worker denies instead: why. */
  notAsked?: NotAsked;
}

/** `decision` carried out by the worker's own rule (askedWhere), for a request not yet sent. */
export function asDeployed(decision: Decision, channel: boolean, request: ActionRequest): AsDeployed {
  const measured = request.requestId ? request : { ...request, requestId: WORKER_ID_STAND_IN };
  const notAsked = decision.outcome === 'ask' ? notAskedBecause(channel, measured) : undefined;
  return { decision: askedWhere(decision, channel, measured), ...(notAsked ? { notAsked } : {}) };
}

/**
 * Why a tool may not take the deployment as without a channel: the policy names one (deprecated,
 * but the worker uses it when its secret has none), so the worker always has a channel to ask in.
 * A tool that cannot read the worker's secret otherwise takes the channel as set unless told.
 */
export function channelContradiction(
  policy: Pick<Policy, 'notifications'>,
  channel: boolean,
): string | undefined {
  if (channel || !policy.notifications.slackWebhookUrl) return undefined;
  return 'the policy names a notifications channel (notifications.slackWebhookUrl), so the worker always has one to ask in';
}
