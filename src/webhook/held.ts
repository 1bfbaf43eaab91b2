/**
 * `/autopilot held [page]` (what is held: id, action, target, requester, why, next look, as a
 * paged table like the other reads) and `/autopilot cancel <requestId> [reason…]` (marks a held
 * request cancelled when the person holds the grant for its action; the worker then ends it and
 * tells the requester and the channel). Within the request's deadline, every value escaped.
 */
import { mayCancel } from '../policy/cancel-grant.js';
import { type HeldRecord, listHeld, lookNow, nextLookText, readHeld } from '../state/held.js';
import { markAnswered, unmarkAnswered, whyText } from '../state/held-answer.js';
import type { StateTable } from '../state/table.js';
import { cancelHeldRequest } from '../worker/cancel.js';
import { code, contextLine, ephemeral, escapeMrkdwn, problem, section, table } from './blocks.js';
import type { Command } from './commands.js';
import { type ShortAnswer, settledOrAnswer } from './deadline.js';
import type { WebhookDeps } from './deps.js';

const PAGE_SIZE = 10;

/** What the webhook does with held requests, on the state table (its held partition only). */
export function heldAccess(table: StateTable): NonNullable<WebhookDeps['held']> {
  return {
    list: () => listHeld(table),
    read: (requestId) => readHeld(table, requestId),
    cancel: (request, mayCancel) => cancelHeldRequest({ table, mayCancel }, request),
    lookNow: (requestId, at) => lookNow(table, requestId, at),
    answer: (requestId, userId, at) => markAnswered(table, requestId, userId, at),
    unanswer: (requestId, userId) => unmarkAnswered(table, requestId, userId),
  };
}

const UNAVAILABLE: ShortAnswer = {
  reply: problem('Held requests cannot be read from here.'),
  outcome: 'unavailable',
};

/** To the minute: the table stays narrow enough for Slack. */
const nextLook = (held: HeldRecord) => nextLookText(held).replace(/:\d\d\.\d{3}Z$/, 'Z');

export async function answerHeld(
  deps: WebhookDeps,
  page: number,
  slash: string,
  deadline: number,
  now: () => number,
): Promise<ShortAnswer> {
  if (!deps.held) return UNAVAILABLE;
  const read = await settledOrAnswer(deps.held.list(), deadline, now, {
    late: { text: 'The state table is slow to answer; please try again.', outcome: 'timeout' },
    failed: { text: 'Held requests cannot be read right now; please try again.', outcome: 'read_failed' },
  });
  if (!read.ok) return read.answer;
  const all = read.value;
  if (all.length === 0)
    return { reply: ephemeral('Nothing is held.', [section('Nothing is held.')]), outcome: 'ok' };
  const pages = Math.ceil(all.length / PAGE_SIZE);
  const rows = all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const more = page < pages ? ` · ${code(`${slash} held ${page + 1}`)} for more` : '';
  const hint = `Page ${page} of ${pages} · ${all.length} held${more} · ${code(`${slash} cancel <id> [reason]`)} cancels one`;
  if (rows.length === 0)
    return {
      reply: ephemeral('No held requests on this page.', [
        section('No held requests on this page.'),
        contextLine(hint),
      ]),
      outcome: 'ok',
    };
  const body = table(
    ['id', 'action', 'target', 'requester', 'why', 'next look'],
    rows.map((h) => [h.requestId, h.action, h.target, h.requester, whyText(h), nextLook(h)]),
  );
  return {
    reply: ephemeral(`Held requests, page ${page}`, [section('*Held requests*'), body, contextLine(hint)]),
    outcome: 'ok',
  };
}

export async function answerCancel(
  deps: WebhookDeps,
  userId: string,
  command: Extract<Command, { name: 'cancel' }>,
  deadline: number,
  now: () => number,
): Promise<ShortAnswer> {
  if (!deps.held) return UNAVAILABLE;
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
  if (!outcome.ok)
    return {
      reply: problem(outcome.message),
      outcome: outcome.code === 'not-allowed' ? 'grant_missing' : outcome.code,
    };
  const what = `${outcome.held.action} ${outcome.held.target}`;
  return {
    reply: ephemeral(`Cancelled ${command.requestId}`, [
      section(
        `:wastebasket: ${code(command.requestId)} (${escapeMrkdwn(what)}, asked by ${escapeMrkdwn(outcome.held.requester)}) is *cancelled*: it will not be done.`,
      ),
      contextLine('The requester and the channel are told within a minute; `why` shows its story.'),
    ]),
    outcome: 'cancelled',
  };
}
