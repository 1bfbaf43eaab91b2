/**
 * Button clicks on the "ask a human" messages the worker posts (brief: "Ask a human"). The
 * button's value is the original action request (base64url JSON); a click counts only for a
 * question still open in the state table, whose copy of the request is used (open-question.ts).
 * Approve re-queues it as the clicking person's request; Deny records a veto on its effect key.
 * Both replace the message so nobody clicks twice; a refusal is shown only to the person who
 * clicked.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { type ActionRequest, actionRequestSchemas, effectKey } from '../actions/request.js';
import { isDryRun } from '../policy/decide.js';
import { SLACK_ID } from '../slack/ids.js';
import { actionWords } from '../slack/mrkdwn.js';
import { once } from '../util/once.js';
import { authorize } from './authorize.js';
import { code, ephemeral, section } from './blocks.js';
import {
  type Click,
  type InteractionContext,
  type InteractionResult,
  refusal,
  refusalNaming,
  replaced,
} from './click.js';
import { settleBy } from './deadline.js';
import { deny, denyRetried } from './deny-click.js';
import type { WebhookDeps } from './deps.js';
import { MalformedSlackRequestError } from './errors.js';
import { firstDeliveryMark } from './first-delivery.js';
import { enqueue, responseUrlOf, SIGNING_AGAIN_TEXT, SIGNING_FAILED_TEXT } from './mutations.js';
import { answerQuestion, openQuestion } from './open-question.js';
import { replier } from './reply.js';
import { whereOutcome } from './where-outcome.js';

export type { InteractionContext, InteractionResult } from './click.js';

export const ORG_WIDE_CLICK_TEXT =
  'Slack did not say which workspace this click came from (the app installed org-wide on Enterprise Grid?), and only workspaces in the policy’s `chat.teams` may answer; nothing was done. Install console-autopilot per workspace.';

export const APPROVE_ACTION_ID = 'autopilot_approve';
export const DENY_ACTION_ID = 'autopilot_deny';

// zod/mini, built on the first click rather than at import: both keep the cold start short.
const blockActionsSchema = once(() => {
  const slackId = z.string().check(z.regex(SLACK_ID));
  return z.object({
    type: z.literal('block_actions'),
    // Null or missing from an Enterprise Grid org-wide install: refused with its reason below.
    team: z.optional(z.nullable(z.object({ id: slackId }))),
    user: z.object({ id: slackId }),
    response_url: z.optional(z.string().check(z.maxLength(2000))),
    actions: z
      .array(
        z.object({
          action_id: z.string().check(z.maxLength(255)),
          value: z.optional(z.string().check(z.maxLength(2000))),
        }),
      )
      .check(z.minLength(1)),
  });
});

/** Decodes a button value back into the request it carries; undefined when it is not one. */
export function decodeButtonValue(value: string | undefined): ActionRequest | undefined {
  if (!value || !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) return undefined;
  try {
    const parsed = actionRequestSchemas().actionRequest.safeParse(
      JSON.parse(Buffer.from(value, 'base64url').toString('utf8')),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** `<original>:approved-by:<user>`, hashed down when the original id would make it too long. */
export function approvedRequestId(original: ActionRequest, userId: string): string {
  const suffix = `:approved-by:${userId}`;
  const base =
    original.requestId ??
    `effect-${createHash('sha256').update(effectKey(original)).update(original.requestedAt).digest('hex').slice(0, 24)}`;
  if (base.length + suffix.length <= 128) return `${base}${suffix}`;
  return `sha-${createHash('sha256').update(base).digest('hex').slice(0, 32)}${suffix}`;
}

/** The block_actions payload of a click; undefined for interaction types that are not ours. */
function parsePayload(raw: string | undefined) {
  if (raw === undefined) throw new MalformedSlackRequestError('missing payload');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new MalformedSlackRequestError('payload is not JSON');
  }
  if ((json as { type?: unknown } | null)?.type !== 'block_actions') return undefined;
  const parsed = blockActionsSchema().safeParse(json);
  if (!parsed.success) throw new MalformedSlackRequestError('payload is not a block_actions payload');
  return parsed.data;
}

export async function handleInteraction(
  deps: WebhookDeps,
  ctx: InteractionContext,
): Promise<InteractionResult> {
  const now = deps.now ?? Date.now;
  const payload = parsePayload(ctx.payload);
  if (!payload) return { outcome: 'ignored' }; // other interaction types are not ours
  const userId = payload.user.id;
  // The click is answered at its response_url through `postReply`, which refuses (and the log line
  // notes) an origin the worker would not post to either; the queued copy keeps it only when usable.
  const responseUrl = responseUrlOf(payload.response_url, deps.replyOrigins);
  const deadline = ctx.startedAt + (deps.deadlineMs ?? 2500);
  const reply = replier(deps, payload.response_url || undefined, deadline + 400, now);
  const action = payload.actions[0]!;
  if (action.action_id !== APPROVE_ACTION_ID && action.action_id !== DENY_ACTION_ID) {
    return { outcome: 'ignored', userId };
  }
  const original = decodeButtonValue(action.value);
  if (!original) {
    await reply.send(refusal('This button does not carry a valid action request; nothing was done.'));
    return { outcome: 'bad_button_value', userId, ...reply.warned() };
  }
  // `chat.teams` lists the workspaces whose clicks count: a click that names none (team null, as
  // Slack sends from an org-wide install) cannot pass, but the person is told why rather than
  // shown a failed button. `user.team_id` is the clicker's home workspace (or the org's id), not
  // the one the click came from, so it does not stand in for it.
  if (!payload.team) {
    await reply.send(refusal(ORG_WIDE_CLICK_TEXT));
    return { outcome: 'team_refused', userId, ...reply.warned() };
  }
  const allowed = authorize(deps.policy, { teamId: payload.team.id, userId }, original.action);
  if (!allowed.ok) {
    await reply.send(refusal(allowed.message));
    return { outcome: allowed.outcome, userId, ...reply.warned() };
  }
  const approving = action.action_id === APPROVE_ACTION_ID;
  // Before the question is read: a retried click that was taken has ended it, or soon will (the
  // worker runs an approved copy within seconds, the next tick ends a denied question).
  const retried = !ctx.retry
    ? undefined
    : approving
      ? await approveRetried(deps, original, userId, responseUrl, deadline, now, reply)
      : await denyRetried(deps, original, userId, deadline, now, reply);
  if (retried) return retried;
  const question = await openQuestion(deps, original, deadline, now, { userId, approve: approving });
  if (!question.ok) {
    await reply.send(
      question.mrkdwn ? refusalNaming(question.message, question.mrkdwn) : refusal(question.message),
    );
    const { outcome, error } = question;
    return { outcome, userId, ...(error !== undefined ? { error } : {}), ...reply.warned() };
  }
  const click: Click = {
    deps,
    ctx,
    original: question.request,
    userId,
    responseUrl,
    deadline,
    now,
    reply,
    // Its ids come from producers: each in a code span (`actionWords`), or a backtick or an
    // asterisk in one formatted the words of the reply that replaces the question for the channel.
    what: actionWords(question.request),
    dryRun: isDryRun(deps.policy, question.request),
  };
  return approving ? approve(click) : deny(click);
}

/**
 * A Slack retry (`X-Slack-Retry-Num`, the same body) of an Approve its first delivery queued (its
 * queued mark found): answered to the clicking person only, nothing queued again. Looked for before
 * the question is read, which the approved copy ends once the worker runs it. Undefined when no mark
 * is found (the first delivery queued nothing, or the mark cannot be read in time): the retry is
 * then taken as a click, with the same id, so the worker acts once were it a copy after all.
 * The reply names ids only: the mark binds the question's id and the person, not the button's words.
 */
async function approveRetried(
  deps: WebhookDeps,
  button: ActionRequest,
  userId: string,
  responseUrl: string | undefined,
  deadline: number,
  now: () => number,
  reply: Click['reply'],
): Promise<InteractionResult | undefined> {
  if (!button.requestId) return undefined;
  const requestId = approvedRequestId(button, userId);
  if ((await firstDeliveryMark(deps, requestId, deadline, now)) === undefined) return undefined;
  // The first delivery's copy carries this same reply URL (the same body), when it is usable.
  const { reply: _asked, ...asked } = button;
  const copy: ActionRequest = responseUrl
    ? { ...asked, reply: { slackResponseUrl: responseUrl, issuedAt: new Date(now()).toISOString() } }
    : asked;
  const where = whereOutcome(copy, `why ${requestId}`, deps.policy);
  const taken = 'Slack sent your Approve of question';
  const again = 'it was already taken: its approved request was queued as';
  const text = `${taken} ${button.requestId} again; ${again} ${requestId} (the worker may have run it already), and nothing was queued a second time. ${where.text}`;
  const mrkdwn = `:white_check_mark: ${taken} ${code(button.requestId)} again; ${again} ${code(requestId)} (the worker may have run it already), and nothing was queued a second time: ${where.mrkdwn}`;
  await reply.send({ ...ephemeral(text, [section(mrkdwn)]), replace_original: false });
  return { outcome: 'retry_ignored', userId, requestId, ...reply.warned() };
}

/** Approve: the request queued as the clicking person's (a retry only when its first delivery never got there). */
async function approve(click: Click): Promise<InteractionResult> {
  const { deps, ctx, original, userId, responseUrl, deadline, now, reply, what, dryRun } = click;
  const requestId = approvedRequestId(original, userId);
  // The first Approve answers the question for good (a retry of the same click passes again).
  const answered = await answerQuestion(deps, original.requestId, userId, deadline, now);
  if (!answered.ok) {
    await reply.send(refusal(answered.message));
    const { outcome, error } = answered;
    return { outcome, userId, ...(error !== undefined ? { error } : {}), ...reply.warned() };
  }
  const request: ActionRequest = {
    ...original,
    requestedBy: { source: 'slack', id: userId },
    // The clicker's request, made now (the webhook's receipt of the click, never a Slack field):
    // maxDeferHours counts from here. Keeping the asked request's time, a click taken just before
    // the question's expiry ("approved… queued") was denied as expired when its copy ran after it.
    requestedAt: new Date(now()).toISOString(),
    requestId,
    // The question it answers, by id: the worker ends it with this copy, and a cancel of it stops this copy.
    answers: original.requestId,
    ...(responseUrl
      ? { reply: { slackResponseUrl: responseUrl, issuedAt: new Date(now()).toISOString() } }
      : {}),
  };
  const sent = await enqueue(deps, request, deadline, now);
  if (!sent.ok) {
    // Not queued for sure: the question is open again (unconfirmed: it may be queued, so it stays answered).
    if (sent.outcome !== 'queue_unconfirmed' && deps.held?.unanswer)
      await settleBy(deps.held.unanswer(original.requestId, userId), deadline + 400, now);
    const told = {
      signing_failed: `${what} was *not* queued: ${SIGNING_FAILED_TEXT}. The question stays open. Click again in a moment: ${SIGNING_AGAIN_TEXT}.`,
      queue_unreachable: `The actions queue could not be reached, so ${what} was *not* queued. Please click again.`,
      queue_unconfirmed: `The actions queue did not confirm ${what} in time; clicking again is safe.`,
    };
    await reply.send(refusal(told[sent.outcome]));
    return { outcome: sent.outcome, userId, requestId, error: sent.error, ...reply.warned() };
  }
  const marked = await settleBy(deps.queued.mark(requestId, sent.messageId, new Date(now())), deadline, now);
  // "Here" only while Slack takes posts there: the copy may be held for hours (a pause, a window).
  const where = whereOutcome(request, `why ${requestId}`, deps.policy);
  await reply.send(
    replaced(
      `${dryRun ? '[dry run] ' : ''}Approved by ${userId}`,
      `:white_check_mark: ${dryRun ? '[dry run: nothing will be changed] ' : ''}${what} was *approved* by <@${userId}> and queued as ${code(requestId)}: ${where.mrkdwn}`,
    ),
  );
  return {
    outcome: ctx.retry ? 'retry_queued' : 'queued',
    userId,
    requestId,
    ...reply.warned(),
    // Queued all the same; only a later retry of it could be queued once more (and acted on once).
    ...(marked.settled && 'error' in marked ? { error: marked.error } : {}),
  };
}
