/**
 * The webhook's Slack reply addresses, from the one origin list every function is given
 * (`SLACK_REPLY_ORIGINS`, read once in from-env.ts): where it posts a click's reply itself, and
 * which `response_url` it keeps for the worker to post the outcome to. Both follow the worker's
 * rule (`isAllowedSlackUrl`), so the webhook never promises a post the worker would refuse.
 */
import type { Metrics } from '../observability/metrics.js';
import { postToSlack } from '../slack/post.js';
import type { WebhookDeps } from '../webhook/deps.js';

/** A reply is part of the webhook's 2.5 s answer to Slack: it is not waited for longer than this. */
const WEBHOOK_SLACK_POST_TIMEOUT_MS = 1_500;

export function webhookReplies(
  allowedOrigins: readonly string[],
  metrics: Metrics,
): Pick<WebhookDeps, 'postReply' | 'replyOrigins'> {
  return {
    postReply: async (url, message) => {
      const posted = await postToSlack(url, message, {
        allowedOrigins,
        timeoutMs: WEBHOOK_SLACK_POST_TIMEOUT_MS,
      });
      if (!posted.ok) metrics.put('SlackPostsFailed', 1, {});
      return posted;
    },
    replyOrigins: allowedOrigins,
  };
}
