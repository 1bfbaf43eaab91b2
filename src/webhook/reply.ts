/**
 * Replies to a click's `response_url`, the only place a click is answered: Slack ignores the
 * body of an interaction response. Slack wants the click acknowledged within three seconds, so
 * a post still running at `replyBy` is left behind; a post Slack refused (an expired or used-up
 * URL) or that never reached it means the person who clicked was told nothing. Either is noted
 * for the request's log line (a warning, so the line is logged at warn), with why, never the
 * URL's path (a bearer capability; `postToSlack` leaves it out of its error).
 */
import type { PostResult } from '../slack/post.js';
import type { SlackReply } from './blocks.js';
import { settleBy } from './deadline.js';
import type { WebhookDeps } from './deps.js';

/** What the request's log line says about the reply; empty when it was delivered (or none was due). */
export interface ReplyNote {
  warning?: string;
  /** Why the reply was not delivered: `postToSlack`'s reason, status and error. */
  replyError?: unknown;
}

function failure(posted: PostResult): ReplyNote {
  if (posted.ok) return {};
  const { reason, status, error } = posted;
  return {
    warning: 'reply to Slack not delivered',
    replyError: { reason, ...(status !== undefined ? { status } : {}), error },
  };
}

export function replier(
  deps: Pick<WebhookDeps, 'postReply'>,
  responseUrl: string | undefined,
  replyBy: number,
  now: () => number,
) {
  let note: ReplyNote = {};
  return {
    async send(message: SlackReply): Promise<void> {
      if (!responseUrl) return;
      const posted = await settleBy(deps.postReply(responseUrl, message), replyBy, now);
      if (!posted.settled) note = { warning: 'reply to Slack not confirmed in time' };
      // `postReply` is not to throw; one that does has not delivered either.
      else if ('error' in posted)
        note = { warning: 'reply to Slack not delivered', replyError: posted.error };
      else note = failure(posted.value);
    },
    warned: (): ReplyNote => note,
  };
}
