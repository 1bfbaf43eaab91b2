/**
 * Posting an outcome to the people a request's outcomes are told: its requester's Slack reply URL
 * while it lives and the notifications channel. Where is read apart from the posting itself, so that
 * a caller can read it before marking the end told (finish.ts); a post never throws or outlives the
 * invocation.
 */
import { liveReplyUrl } from '../actions/request.js';
import { postToSlack, type SlackMessage } from '../slack/post.js';
import { currentDate, notificationsUrl, type RecordContext, type RecordDeps } from './record.js';

/**
 * Posts `message` where a request's outcomes are told: the requester's Slack reply URL while it
 * lives and, with `channel`, the notifications channel. A post that fails is counted and logged.
 */
export async function tell(
  deps: RecordDeps,
  ctx: RecordContext,
  message: SlackMessage,
  channel: boolean,
): Promise<void> {
  await postAll(deps, ctx, await tellTargets(deps, ctx, channel), message);
}

/** Where a request's outcomes are told: its live reply URL and, with `channel`, the notifications channel. */
export async function tellTargets(deps: RecordDeps, ctx: RecordContext, channel: boolean): Promise<string[]> {
  const { request } = ctx;
  const targets: string[] = [];
  const replyUrl = liveReplyUrl(request, currentDate(deps));
  if (replyUrl) targets.push(replyUrl);
  else if (request.reply?.slackResponseUrl)
    ctx.log.info('reply URL expired (Slack keeps one 30 minutes): not posted');
  const channelUrl = channel ? await notificationsUrl(deps) : undefined;
  if (channelUrl) targets.push(channelUrl);
  return targets;
}

export async function postAll(
  deps: RecordDeps,
  ctx: RecordContext,
  targets: string[],
  message: SlackMessage,
) {
  await Promise.all(targets.map((url) => reply(deps, ctx, url, message)));
}

async function reply(
  deps: RecordDeps,
  ctx: RecordContext,
  url: string,
  message: SlackMessage,
): Promise<void> {
  // postToSlack returns its failures; one thrown all the same is one more (the end may be marked told already).
  const posted = await postToSlack(url, message, postOptions(deps, ctx)).catch(
    (error: unknown) => ({ ok: false, error: String(error), status: undefined }) as const,
  );
  // A reply that cannot be delivered does not undo or retry the work; it is logged (without the URL's path).
  if (!posted.ok) {
    deps.metrics.put('SlackPostsFailed', 1, {}, { requestId: ctx.request.requestId });
    ctx.log.warn('reply not delivered', { error: posted.error, status: posted.status });
  }
}

/** The invocation's last second is not spent waiting for Slack (see `postOptions`). */
const POST_MARGIN_MS = 1_000;
const SLACK_TIMEOUT_MS = 5_000;

/**
 * A post never outlives the invocation: Lambda would end it as timed out, the batch would come
 * back, and its finished records would be told again. A post cut short is counted as failed.
 */
export function postOptions(deps: Pick<RecordDeps, 'slack'>, ctx: Pick<RecordContext, 'timing'>) {
  const left = ctx.timing.remainingMs() - POST_MARGIN_MS;
  const timeoutMs = Math.max(100, Math.min(deps.slack.timeoutMs ?? SLACK_TIMEOUT_MS, left));
  return { ...deps.slack, timeoutMs };
}
