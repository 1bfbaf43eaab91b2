/**
 * Where a person who queued a request from Slack (a slash command, an Approve click) reads its
 * outcome, as the reply promises it. The worker posts the outcome to the request's reply URL
 * only while Slack takes posts there (`liveReplyUrl`: 30 minutes from its issue, the one rule the
 * worker and `/autopilot cancel` follow), and to the notifications channel. A request can be held
 * for hours (a window, a pause, a limit, a question waiting for a person, up to `maxDeferHours`):
 * its outcome then reaches the channel only. So "here" is promised for that time only, and the
 * reply names where a later outcome goes; `why <id>` shows it whenever it comes.
 */
import { type ActionRequest, SLACK_RESPONSE_URL_LIFETIME_MS } from '../actions/request.js';
import type { Policy } from '../policy/schema.js';
import { code } from './blocks.js';

/** How long "here" lasts, in words, from the one lifetime. */
const LIFE = `${SLACK_RESPONSE_URL_LIFETIME_MS / 60_000} minutes`;

/**
 * The channel's URL is certain here only when the policy names it (deprecated); otherwise it is in
 * the worker's secret, which the webhook may not read, so the channel is named as conditional.
 */
function channel(policy: Pick<Policy, 'notifications'>): string {
  return policy.notifications.slackWebhookUrl
    ? 'the notifications channel'
    : 'the notifications channel if one is set up';
}

/**
 * The sentence, in plain text and in mrkdwn (lower-case: it follows other words). `why`: the
 * command that shows the request's story (`/autopilot why <id>`).
 */
export function whereOutcome(
  request: ActionRequest,
  why: string,
  policy: Pick<Policy, 'notifications'>,
): { text: string; mrkdwn: string } {
  const where = channel(policy);
  if (request.reply?.slackResponseUrl) {
    const later = `Slack takes replies here for ${LIFE} only, so an outcome that comes later (the request held by a window, a pause, a limit or a question) goes to ${where}`;
    return {
      text: `The outcome is posted here if it comes within ${LIFE}; ${later}, and ${why} shows it.`,
      mrkdwn: `the worker posts the outcome here if it comes within ${LIFE}; ${later}, and ${code(why)} shows it.`,
    };
  }
  // No usable reply address (none, or not one the worker posts to: `responseUrlOf`).
  const none = 'Slack sent no usable reply address with this request, so the outcome cannot be posted here';
  return {
    text: `${none}: ${why} shows it, and so does ${where}.`,
    mrkdwn: `${none}: ${code(why)} shows it, and so does ${where}.`,
  };
}

/** The help's line about where changes are answered. */
export const WHERE_OUTCOME_HELP = `Changes are queued and decided by the policy; the outcome is posted back here if it comes within ${LIFE}, later in the notifications channel (when one is set up), and \`why <id>\` shows it.`;
