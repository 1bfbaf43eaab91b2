/**
 * Which question an Approve or Deny click answers. A button's value is text: anyone who can
 * post as the app (the notifications webhook URL is enough) could write a message whose text
 * says one thing and whose button carries another request. So a click counts only for a
 * question the worker really asked and that is still open: its held item (src/state/held.ts)
 * waits for an answer, is not cancelled, and is about the same effect as the button. What is
 * queued or vetoed is the held copy of the request, never the button's.
 */
import { type ActionRequest, effectKey } from '../actions/request.js';
import { afterExpiry, requestExpiresAt } from '../policy/decide.js';
import { escapeMrkdwn, oneLine } from '../slack/mrkdwn.js';
import { settleBy } from './deadline.js';
import type { WebhookDeps } from './deps.js';

export type OpenQuestion =
  | { ok: true; request: ActionRequest & { requestId: string } }
  | { ok: false; outcome: string; message: string; error?: unknown; mrkdwn?: string };

const CLOSED =
  'This question is no longer open (it was answered, cancelled or has expired), or the button does not match it; nothing was done.';

/**
 * A question held again by a pause (a redelivery of its asking message while paused: the pause
 * comes first, and the worker writes the wait anew as `paused`). It is no open question (a mark
 * is written only on one), but nothing closed it: `resume` sends it back, the worker asks no
 * second time, and these buttons count again while it is still asked.
 */
const PAUSED =
  'Automation is paused, so this question is held until someone resumes automation (`resume`); nothing was done. Once it is resumed the question is looked at again within a minute, and while it is still asked these buttons count again.';

/** Approved already by a click (src/state/held-answer.ts): only that person's retry still counts. */
const answered = (by: string) =>
  `This question was already answered: ${by} approved it, and the approved request is on its way; nothing was done.`;

/**
 * The words the decision uses (src/policy/decide.ts, `expiry`): nothing changes after this instant.
 * While automation is paused the tick sends nothing back and the worker holds even an expired
 * request (the pause comes first), so it is closed only once automation is resumed.
 */
const expired = (at: Date, request: ActionRequest) =>
  `This question expired at ${at.toISOString().replace(/\.\d{3}Z$/, 'Z')} (approvals.maxDeferHours), so it can no longer be answered; nothing was done. It is closed as expired at its next look (while automation is paused: once it is resumed); ${afterExpiry(request)}.`;

/** `slack:U…` as a mention, anything else escaped; and as plain text (the fallback). */
const named = (by: string | undefined) => {
  if (!by) return { text: 'a person', mrkdwn: 'a person' };
  const user = /^slack:([A-Z0-9]+)$/.exec(by)?.[1];
  return user
    ? { text: user, mrkdwn: `<@${user}>` }
    : { text: oneLine(by), mrkdwn: escapeMrkdwn(oneLine(by)) };
};

/**
 * A question the worker ended as denied by a person's Deny (its final: `denied` by rule `veto`,
 * about the button's effect), with who, from the audit record of that decision (its veto input):
 * our own records only, never the button's text. Undefined otherwise, or when unread in time.
 */
async function deniedEnd(
  deps: WebhookDeps,
  requestId: string,
  button: ActionRequest,
  deadline: number,
  now: () => number,
): Promise<{ message: string; mrkdwn: string } | undefined> {
  if (!deps.audit) return undefined;
  const read = await settleBy(deps.audit.read(requestId), deadline, now);
  if (!read.settled || 'error' in read) return undefined;
  const { final, records } = read.value;
  if (final?.result !== 'denied' || final.rule !== 'veto') return undefined;
  const decided = records.findLast((r) => r.result === 'denied' && r.rule === 'veto' && r.inputs?.veto);
  if (!decided || decided.effectKey !== effectKey(button)) return undefined;
  const who = named(decided.inputs?.veto?.by);
  const words = (by: string) =>
    `${decided.dryRun ? '[dry run] ' : ''}This question was already denied by ${by}; nothing was done.`;
  return { message: words(who.text), mrkdwn: words(who.mrkdwn) };
}

export async function openQuestion(
  deps: WebhookDeps,
  button: ActionRequest,
  deadline: number,
  now: () => number,
  clicker?: { userId: string; approve: boolean },
): Promise<OpenQuestion> {
  if (!deps.held || !button.requestId)
    return {
      ok: false,
      outcome: 'question_unknown',
      message: 'This question cannot be checked here; nothing was done.',
    };
  const read = await settleBy(deps.held.read(button.requestId), deadline, now);
  if (!read.settled || 'error' in read) {
    return {
      ok: false,
      outcome: read.settled ? 'state_unreachable' : 'state_unconfirmed',
      message:
        'The state table did not answer, so this click could not be checked; nothing was done. Please try again.',
      ...(read.settled ? { error: read.error } : {}),
    };
  }
  const held = read.value;
  const ours = held !== undefined && !held.cancel && effectKey(held.request) === effectKey(button);
  if (!ours || (held.why !== 'ask' && held.why !== 'paused')) {
    // Gone: the worker may have ended it as denied by a person's Deny; then that is what is said.
    const denied = held ? undefined : await deniedEnd(deps, button.requestId, button, deadline, now);
    if (denied) return { ok: false, outcome: 'question_denied', ...denied };
    return { ok: false, outcome: 'question_closed', message: CLOSED };
  }
  const repeat = clicker?.approve === true && held.answeredBy === clicker.userId;
  if (held.answeredBy && !repeat)
    return { ok: false, outcome: 'question_answered', message: answered(held.answeredBy) };
  // Past its own expiry the worker denies the question at its next look (within a minute; after
  // resume while paused): a click now would be queued ("approved… the outcome follows") only to
  // be denied as expired.
  // A retry of a click taken before reaches here only when its copy was not marked queued
  // (interactions.ts looks first): `approve` queues it again under the same id, acted on once. A
  // Deny is still taken: its veto keeps automation (a later CI or event-rule request) off the change.
  const expiresAt = requestExpiresAt(deps.policy, held.request);
  if (!repeat && clicker?.approve !== false && now() > expiresAt.getTime())
    return { ok: false, outcome: 'question_expired', message: expired(expiresAt, held.request) };
  if (held.why === 'paused') return { ok: false, outcome: 'question_paused', message: PAUSED };
  return { ok: true, request: { ...held.request, requestId: held.requestId } };
}

const ANSWERED_MEANWHILE =
  'This question is no longer open: it was answered (approved) or cancelled meanwhile; nothing was done.';

type Gate = { ok: true } | { ok: false; outcome: string; message: string; error?: unknown };

/**
 * An Approve click marks the question answered, on the held item's conditional write: the first
 * of two racing clicks wins, and a Slack retry of the same click passes again.
 */
export async function answerQuestion(
  deps: WebhookDeps,
  requestId: string,
  userId: string,
  deadline: number,
  now: () => number,
): Promise<Gate> {
  if (!deps.held?.answer) return { ok: true };
  const marked = await settleBy(deps.held.answer(requestId, userId, new Date(now())), deadline, now);
  if (marked.settled && 'value' in marked)
    return marked.value
      ? { ok: true }
      : { ok: false, outcome: 'question_closed', message: ANSWERED_MEANWHILE };
  return {
    ok: false,
    outcome: marked.settled ? 'state_unreachable' : 'state_unconfirmed',
    message:
      'The state table did not answer, so this click could not be taken; nothing was done. Please try again.',
    ...(marked.settled ? { error: marked.error } : {}),
  };
}

/**
 * A Deny click: the question is looked at by the next tick (and ended by the veto), unless an
 * Approve click answered it or a cancel closed it since it was read. A slow or failed write is
 * no refusal: the veto still ends the question at its next hourly look. With `deniedBy` (the look
 * after the veto) it is the Deny's mark as well, which a slow or failed write leaves unsaid.
 */
export async function lookAgainNow(
  deps: WebhookDeps,
  requestId: string,
  deadline: number,
  now: () => number,
  deniedBy?: string,
): Promise<Gate | { ok: 'unconfirmed'; error?: unknown }> {
  if (!deps.held?.lookNow) return { ok: true };
  const looked = await settleBy(deps.held.lookNow(requestId, new Date(now()), deniedBy), deadline, now);
  if (looked.settled && 'value' in looked && !looked.value)
    return { ok: false, outcome: 'question_closed', message: ANSWERED_MEANWHILE };
  if (looked.settled && 'value' in looked) return { ok: true };
  return { ok: 'unconfirmed', ...(looked.settled ? { error: looked.error } : {}) };
}

const VETOED = 'Your Deny still stops automated requests for this change, not a person’s approval.';

/**
 * A Deny's second look, once its veto is written: it leaves the Deny's mark on the held item
 * (`deniedBy`), which a copy that decided "approve" before the veto meets at its executing gate
 * (src/state/held-gates.ts): the change is not made, the copy decides again and finds the veto.
 * The mark is refused while a copy already holds the executing mark (`executingBy`, or `reachedAt`
 * once an attempt may have reached the platform): that copy's approval is being made (or may have
 * been), and no pass ends the question while it is; the Deny's author is told it came too late. An
 * Approve click (or a cancel) that took the question between the Deny's first look and its veto has
 * answered it: the Deny is not the answer, its veto only stops automation. A question no longer held
 * ended meanwhile (by the veto, most likely): the Deny stands. Unconfirmed, the Deny is not told as
 * the answer: its author clicks again.
 */
export async function lookAfterVeto(
  deps: WebhookDeps,
  requestId: string,
  deniedBy: string,
  deadline: number,
  now: () => number,
): Promise<Gate> {
  const looked = await lookAgainNow(deps, requestId, deadline, now, deniedBy);
  if (looked.ok === true) return looked;
  if (looked.ok === 'unconfirmed')
    return {
      ok: false,
      outcome: 'state_unconfirmed',
      message: `The state table did not confirm your Deny in time, so an approval decided just before it may still be made. ${VETOED} Please click Deny again.`,
      ...(looked.error !== undefined ? { error: looked.error } : {}),
    };
  if (!deps.held) return looked;
  const read = await settleBy(deps.held.read(requestId), deadline, now);
  const held = read.settled && 'value' in read ? read.value : undefined;
  if (read.settled && 'value' in read && !held) return { ok: true };
  if (held?.executingBy || held?.reachedAt)
    return {
      ok: false,
      outcome: 'deny_too_late',
      message:
        'Your Deny came too late to stop this change: its approval was already sent to the Console API (it is being made right now, or an attempt may have made it); its outcome follows in the channel. Your Deny still stops any later automated attempt at this change.',
    };
  if (held?.answeredBy)
    return {
      ok: false,
      outcome: 'question_answered',
      message: `This question was answered meanwhile: ${held.answeredBy} approved it, and the approved request is on its way. ${VETOED}`,
    };
  return {
    ok: false,
    outcome: 'question_closed',
    message: `This question was answered (approved) or cancelled meanwhile. ${VETOED}`,
  };
}
