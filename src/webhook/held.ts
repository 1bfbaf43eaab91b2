/**
 * `/autopilot held [after <requestId>]` (what is held: id, action, target, requester, why, for a
 * question when it expires, next look, as a table paged by request id) and `/autopilot cancel <requestId>
 * [reason…]` (marks a held request cancelled when the person holds the grant for its action; the
 * worker then ends it and tells the requester and the channel). Within the request's deadline, every value escaped.
 */
import { liveReplyUrl } from '../actions/request.js';
import { mayCancel } from '../policy/cancel-grant.js';
import { requestExpiresAt } from '../policy/decide.js';
import type { Policy } from '../policy/schema.js';
import { actionWords, reasonMrkdwn } from '../slack/mrkdwn.js';
import { isAllowedSlackUrl } from '../slack/post.js';
import { readFinal } from '../state/audit.js';
import { type HeldRecord, lookNow, nextLookText, readHeld } from '../state/held.js';
import { markAnswered, unmarkAnswered, whyText } from '../state/held-answer.js';
import { countHeld, type HeldCount } from '../state/held-count.js';
import { listHeldPage } from '../state/held-list.js';
import type { StateTable } from '../state/table.js';
import { cancelHeldRequest } from '../worker/cancel.js';
import {
  code,
  contextLine,
  ephemeral,
  escapeMrkdwn,
  fittedTable,
  problem,
  type SlackReply,
  section,
} from './blocks.js';
import type { Command } from './commands.js';
import { type ShortAnswer, settleBy, settledOrAnswer } from './deadline.js';
import type { CancelLost, WebhookDeps } from './deps.js';
import { firstDeliveryMark } from './first-delivery.js';

const PAGE_SIZE = 10;

/** What the webhook does with held requests, on the state table (its held partition only). */
export function heldAccess(table: StateTable): NonNullable<WebhookDeps['held']> {
  return {
    page: (size, after) => listHeldPage(table, size, after),
    count: () => countHeld(table),
    read: (requestId) => readHeld(table, requestId),
    cancel: async (request, mayCancel) => {
      const outcome = await cancelHeldRequest({ table, mayCancel }, request);
      // The worker (or the tick) began to record the request's own end first, and has (a denial by
      // maxDeferHours, say): that end is the request's and is told; its author hears how it ended.
      if (!outcome.ok && outcome.code === 'ending' && outcome.final)
        return { ok: false, code: 'ended-otherwise', held: outcome.held, final: outcome.final };
      if (!outcome.ok) return outcome;
      // A final written without that gate (a copy ending it as another request's change, done
      // already) can still precede the mark: that end is the request's, and its author must hear so.
      const final = await readFinal(table, request.requestId);
      if (final && final.result !== 'cancelled')
        return { ok: false, code: 'ended-otherwise', held: outcome.held, final };
      return outcome;
    },
    lookNow: (requestId, at, deniedBy) => lookNow(table, requestId, at, deniedBy),
    answer: (requestId, userId, at) => markAnswered(table, requestId, userId, at),
    unanswer: (requestId, userId) => unmarkAnswered(table, requestId, userId),
  };
}

const UNAVAILABLE: ShortAnswer = {
  reply: problem('Held requests cannot be read from here.'),
  outcome: 'unavailable',
};

/** To the minute: the table stays narrow enough for Slack. */
const toMinute = (iso: string) => iso.replace(/:\d\d\.\d{3}Z$/, 'Z');
const nextLook = (held: HeldRecord) => toMinute(nextLookText(held));

/**
 * Why it waits; an open question also says when it expires unanswered (src/policy/decide.ts, the
 * worker's own instant: after it an Approve is refused and the next look denies it), which its
 * hourly next look does not tell. Fits a cell: "ask, expires 2026-11-26T10:00Z".
 */
function whyCell(policy: Policy, held: HeldRecord): string {
  if (held.why !== 'ask' || held.answeredBy || held.cancel) return whyText(held);
  const expires = requestExpiresAt(policy, held.request);
  return Number.isFinite(expires.getTime()) ? `ask, expires ${toMinute(expires.toISOString())}` : 'ask';
}

/** How many are held, as `status` counts them (up to 50: "50+"), or nothing when it cannot count. */
const heldCountText = (count: HeldCount | undefined) =>
  count ? `${count.count}${count.more ? '+' : ''} held · ` : '';

export async function answerHeld(
  deps: WebhookDeps,
  after: string | undefined,
  slash: string,
  deadline: number,
  now: () => number,
): Promise<ShortAnswer> {
  if (!deps.held) return UNAVAILABLE;
  // The count is status's capped one: an exact total would read every held item for each page.
  // It only decorates the page: a count that fails leaves the total out, not the page.
  const counting = deps.held.count?.().catch(() => undefined);
  const reading = Promise.all([deps.held.page(PAGE_SIZE, after), counting]);
  // The state table's outcomes, which the webhook counts (StateTableUnreachable): a `held` that
  // fails for everyone (the role's read of the held partition, the table gone) pages an operator.
  const read = await settledOrAnswer(reading, deadline, now, {
    late: { text: 'The state table is slow to answer; please try again.', outcome: 'state_unconfirmed' },
    failed: {
      text: 'Held requests cannot be read right now; please try again.',
      outcome: 'state_unreachable',
    },
  });
  if (!read.ok) return read.answer;
  const [{ rows, next: afterPage }, count] = read.value;
  if (rows.length === 0 && after === undefined)
    return { reply: ephemeral('Nothing is held.', [section('Nothing is held.')]), outcome: 'ok' };
  const { block: body, shown } = fittedTable(
    ['id', 'action', 'target', 'requester', 'why', 'next look'],
    rows.map((h) => [h.requestId, h.action, h.target, h.requester, whyCell(deps.policy, h), nextLook(h)]),
  );
  // Rows too wide for Slack's limit are dropped from the table: the next page starts after the
  // last row shown, or they would never be shown.
  const next = shown < rows.length ? rows[shown - 1]?.requestId : afterPage;
  const more = next === undefined ? '' : `${code(`${slash} held after ${next}`)} for more · `;
  const hint = `${heldCountText(count)}by request id · ${more}${code(`${slash} cancel <id> [reason]`)} cancels one`;
  const title = after === undefined ? 'Held requests' : `Held requests after ${after}`;
  if (rows.length === 0)
    return {
      reply: ephemeral(`No held requests after ${after}.`, [
        section(`No held requests after ${code(after ?? '')}.`),
        contextLine(hint),
      ]),
      outcome: 'ok',
    };
  const heading = after === undefined ? '*Held requests*' : `*Held requests* after ${code(after)}`;
  return { reply: ephemeral(title, [section(heading), body, contextLine(hint)]), outcome: 'ok' };
}

/**
 * The held request in mrkdwn, as the worker's posts show it: its ids, group names and requester
 * each in a code span. Group names are checked for length only (an event rule fills them from
 * client-logged metadata): escaped only, a line break in one wrote a line of its own in the reply.
 */
const heldWords = (held: HeldRecord) => `${actionWords(held.request)}, asked by ${code(held.requester)}`;

/**
 * The request ended otherwise before the cancel took (its end was recorded first): how it ended.
 * Its reason names the request's ids as the worker's post of that end does (`reasonMrkdwn`: each
 * in a code span); only escaped, an id's `*` or `_` formatted the reply's words around it.
 */
function endedOtherwise(requestId: string, lost: CancelLost): ShortAnswer {
  const { result, rule } = lost.final;
  const reason = reasonMrkdwn(lost.final.reason, lost.held.request, lost.held.requester);
  return {
    reply: ephemeral(`${requestId} was not cancelled: it had ended as ${result}`, [
      section(
        `:warning: ${code(requestId)} (${heldWords(lost.held)}) was *not cancelled*: it had already ended as *${escapeMrkdwn(result)}* (${escapeMrkdwn(rule)}: ${reason}).`,
      ),
      contextLine('That end stands; nobody is told of a cancel. `why` shows its story.'),
    ]),
    outcome: 'ended_otherwise',
  };
}

/**
 * A cancel of a request that is not held (ended, cancelled already, or an id nobody held): the
 * refusal alone was a dead end ("not held (it ended, or never waited)"), without how it ended or
 * what to try; the person is pointed at its story and at what can be cancelled.
 */
function notHeldReply(message: string, requestId: string, slash: string): SlackReply {
  const refused = problem(message);
  const next = contextLine(
    `${code(`${slash} why ${requestId}`)} shows its story; ${code(`${slash} held`)} lists what can be cancelled.`,
  );
  return { ...refused, blocks: [...(refused.blocks ?? []), next] };
}

/** The worker ends a cancelled request within about this long (the tick's minute, then the queue). */
const ENDED_WITHIN_MS = 60_000;

/**
 * Who the worker will tell of the cancel, and only them: the requester while their Slack reply
 * address still takes posts when it is told (30 minutes from its issue) and is one the worker posts
 * to (the one origin rule, `isAllowedSlackUrl` with the same list); the notifications channel when
 * the deployment has one. Its URL lives in the worker's secret, which the webhook may not read:
 * only the policy's (deprecated) URL is known here, otherwise the channel is named as conditional.
 */
function whoIsTold(deps: WebhookDeps, held: HeldRecord, at: Date): string {
  const url = liveReplyUrl(held.request, new Date(at.getTime() + ENDED_WITHIN_MS));
  const requester = url !== undefined && isAllowedSlackUrl(url, deps.replyOrigins);
  const known = Boolean(deps.policy.notifications.slackWebhookUrl);
  const ifAny = known ? '' : ' if the worker has one (`slackWebhookUrl` in its secret)';
  if (requester)
    return known
      ? 'The requester and the notifications channel are told within a minute; `why` shows its story.'
      : `The requester is told within a minute, and the notifications channel${ifAny}; \`why\` shows its story.`;
  return `The notifications channel is told within a minute${ifAny}; the requester has no Slack reply address that still takes posts, so \`why\` is where they see it.`;
}

/** Who typed the cancel, and Slack's delivery of it (its id: the same on a retry of the same body). */
export interface CancelDelivery {
  userId: string;
  /** The slash command's request id (`slackRequestId`), the key of its mark in the queued family. */
  requestId: string;
  /** Slack's X-Slack-Retry-Num was present. */
  retry: boolean;
  /** The slash command as typed (`/autopilot`), for the next step a refusal names. */
  slash: string;
}

/** The mark's value: the cancelled request, so only a retry of this very cancel matches it. */
const cancelMarkValue = (requestId: string) => `cancel:${requestId}`;

/** A Slack retry of a cancel its first delivery took: answered to the person only, nothing written. */
function cancelRetryReply(requestId: string): ShortAnswer {
  const taken = 'Slack sent your cancel of';
  const again = 'again; it was already taken: it is cancelled, and nothing was written a second time.';
  return {
    reply: ephemeral(`${taken} ${requestId} ${again}`, [
      section(`:wastebasket: ${taken} ${code(requestId)} ${again}`),
      contextLine(`${code(`why ${requestId}`)} shows its story.`),
    ]),
    outcome: 'retry_ignored',
  };
}

export async function answerCancel(
  deps: WebhookDeps,
  delivery: CancelDelivery,
  command: Extract<Command, { name: 'cancel' }>,
  deadline: number,
  now: () => number,
): Promise<ShortAnswer> {
  if (!deps.held) return UNAVAILABLE;
  const { userId } = delivery;
  // A Slack retry of a cancel its first delivery recorded finds the held item marked (or gone, once
  // the worker ended it) and was refused "already cancelled" / "not held", though this person's own
  // cancel did it: its mark (below) is looked for first. A retry whose first delivery recorded
  // nothing (or that cannot tell in time) is taken as the cancel.
  if (delivery.retry) {
    const earlier = await firstDeliveryMark(deps, delivery.requestId, deadline, now);
    if (earlier === cancelMarkValue(command.requestId)) return cancelRetryReply(command.requestId);
  }
  const at = new Date(now());
  const by = `slack:${userId}`;
  const done = await settledOrAnswer(
    deps.held.cancel({ requestId: command.requestId, by, reason: command.reason, now: at }, (held) =>
      mayCancel(deps.policy, by, held.request, at),
    ),
    deadline,
    now,
    {
      late: {
        text: 'The state table did not confirm the cancel in time; check with `held` before trying again.',
        outcome: 'state_unconfirmed',
      },
      failed: {
        text: 'The cancel could not be recorded: the state table did not answer. Please try again.',
        outcome: 'state_unreachable',
      },
    },
  );
  if (!done.ok) return done.answer;
  const outcome = done.value;
  if (!outcome.ok && outcome.code === 'ended-otherwise') return endedOtherwise(command.requestId, outcome);
  if (!outcome.ok && (outcome.code === 'not-held' || outcome.code === 'ended'))
    return { reply: notHeldReply(outcome.message, command.requestId, delivery.slash), outcome: outcome.code };
  if (!outcome.ok)
    return {
      reply: problem(outcome.message),
      outcome: outcome.code === 'not-allowed' ? 'grant_missing' : outcome.code,
    };
  // Marked like a queued request (the same family, so no new grant): only a retry reads it.
  const marked = await settleBy(
    deps.queued.mark(delivery.requestId, cancelMarkValue(command.requestId), at),
    deadline,
    now,
  );
  return {
    reply: ephemeral(`Cancelled ${command.requestId}`, [
      section(
        `:wastebasket: ${code(command.requestId)} (${heldWords(outcome.held)}) is *cancelled*: it will not be done.`,
      ),
      contextLine(whoIsTold(deps, outcome.held, at)),
    ]),
    outcome: 'cancelled',
    // Cancelled all the same; only a later retry of it would be refused as "already cancelled".
    ...(marked.settled && 'error' in marked ? { error: marked.error } : {}),
  };
}
