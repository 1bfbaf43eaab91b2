/**
 * A Deny click on an "ask" message: a veto on the question's effect (the worker reads it; the
 * webhook only writes it), and the question looked at by the next tick, which ends it by the veto.
 * A Deny told as the answer is marked in the queued family (src/state/queued.ts), so a Slack retry
 * of that click is recognised even once the question it ended is gone: the veto alone cannot tell
 * it (it may be a retry's, or an earlier question's on the same effect), and without the mark the
 * retry was told "nothing was done". The first Deny on an effect is its veto (src/state/veto.ts):
 * another person's later Deny is told whose it is, and is not the answer.
 */
import type { ActionRequest } from '../actions/request.js';
import { isDryRun, type Veto } from '../policy/decide.js';
import { formerVetoKeyFor, vetoKeyFor } from '../policy/veto-key.js';
import { actionWords } from '../slack/mrkdwn.js';
import { ephemeral, section } from './blocks.js';
import { type Click, type InteractionResult, refusal, replaced } from './click.js';
import { settleBy } from './deadline.js';
import type { WebhookDeps } from './deps.js';
import { firstDeliveryMark } from './first-delivery.js';
import { lookAfterVeto, lookAgainNow } from './open-question.js';

/**
 * The mark's key: the asked request and the person, as an Approve's copy is named; never an id a
 * request is queued under (no `slack-` prefix, no `:approved-by:`).
 */
const denyMarkId = (requestId: string, userId: string) => `deny:${requestId}:by:${userId}`;

/** The mark's value: the veto's key, so only a retry of a Deny on the same effect matches it. */
const denyMarkValue = (deps: WebhookDeps, request: ActionRequest) =>
  `veto:${vetoKeyFor(deps.policy, request)}`;

/**
 * A Slack retry (`X-Slack-Retry-Num`, the same body) of a Deny its first delivery took: answered,
 * nothing written again. Undefined when no such mark is found (the first delivery wrote nothing,
 * was refused, or the mark cannot be read in time): the retry is then taken as a click.
 */
export async function denyRetried(
  deps: WebhookDeps,
  button: ActionRequest,
  userId: string,
  deadline: number,
  now: () => number,
  reply: Click['reply'],
): Promise<InteractionResult | undefined> {
  if (!button.requestId) return undefined;
  const earlier = await firstDeliveryMark(deps, denyMarkId(button.requestId, userId), deadline, now);
  if (earlier !== denyMarkValue(deps, button)) return undefined;
  const dry = isDryRun(deps.policy, button) ? '[dry run] ' : '';
  const text = `${dry}Slack sent your Deny of ${actionWords(button)} again; it was already taken: its veto is recorded, and the question ends at its next check (within a minute; while automation is paused, once it is resumed) if it has not ended already. Nothing was written a second time.`;
  await reply.send({ ...ephemeral(text, [section(`:no_entry: ${text}`)]), replace_original: false });
  return { outcome: 'retry_ignored', userId, requestId: button.requestId, ...reply.warned() };
}

/** Another person's Deny, earlier, is the veto on record: like an answered question's "already answered". */
function alreadyDenied(earlier: Veto, dryRun: boolean): string {
  const who = earlier.by.replace(/^slack:/, '');
  const at = earlier.at.replace(/\.\d{3}Z$/, 'Z');
  return `${dryRun ? '[dry run] ' : ''}This question was already denied: ${who} denied it at ${at}, and that Deny stops automated requests for this change; the question ends at its next check (within a minute; while automation is paused, once it is resumed) if it has not ended already. Your Deny was not recorded over it.`;
}

/** Deny: a veto on the effect, so automation will not do it (a person with the grant still can). */
export async function deny({
  deps,
  original,
  userId,
  deadline,
  now,
  reply,
  what,
  dryRun,
}: Click): Promise<InteractionResult> {
  const at = new Date(now()).toISOString();
  // First the held question: a Deny after an Approve click answered it is refused (open-question.ts).
  const looked = await lookAgainNow(deps, original.requestId, deadline, now);
  if (looked.ok === false) {
    await reply.send(refusal(looked.message));
    return { outcome: looked.outcome, userId, ...reply.warned() };
  }
  // Written under the current key; a Deny on record under the former one (a question open across
  // the deploy of the digest keys, denied before it) is the first Deny, and this one is told whose
  // it is (src/policy/veto-key.ts `formerVetoKeyFor`): else the channel and audit credited this click.
  const written = await settleBy(
    deps.writeVeto(
      vetoKeyFor(deps.policy, original),
      { by: `slack:${userId}`, at },
      formerVetoKeyFor(deps.policy, original),
    ),
    deadline,
    now,
  );
  if (!written.settled || 'error' in written) {
    await reply.send(
      refusal(`Could not record the denial of ${what}: the state table did not answer. Please try again.`),
    );
    return {
      outcome: written.settled ? 'state_unreachable' : 'state_unconfirmed',
      userId,
      ...(written.settled ? { error: written.error } : {}),
      ...reply.warned(),
    };
  }
  const veto = written.value;
  // Again, now that the veto is there: a tick between the first look and the veto re-held it for
  // an hour; an Approve click between them answered it, and the Deny is no denial then.
  // Its mark then stops a copy that decided "approve" before the veto (refused once one executes).
  // A later Deny by another person leaves it too, in the name of the Deny on record: that Deny's
  // own mark may be unwritten yet (a slow write), and the question must not be approved meanwhile.
  const again = await lookAfterVeto(deps, original.requestId, veto.veto.by, deadline, now);
  if (!again.ok) {
    await reply.send(refusal(again.message));
    const error = again.error !== undefined ? { error: again.error } : {};
    return { outcome: again.outcome, userId, requestId: original.requestId, ...error, ...reply.warned() };
  }
  // Another person's Deny vetoed it first: theirs stands, and the question ends by it.
  if (!veto.recorded) {
    await reply.send(refusal(alreadyDenied(veto.veto, dryRun)));
    return { outcome: 'question_denied', userId, requestId: original.requestId, ...reply.warned() };
  }
  // Told as the answer: a Slack retry of this click finds this mark and is only answered.
  const marked = await settleBy(
    deps.queued.mark(denyMarkId(original.requestId, userId), denyMarkValue(deps, original), new Date(now())),
    deadline,
    now,
  );
  await reply.send(
    replaced(
      `${dryRun ? '[dry run] ' : ''}Denied by ${userId}`,
      // A dry run's Deny vetoes dry runs only (veto-key.ts): the real change is still free to be decided.
      dryRun
        ? `:no_entry: [dry run] ${what} was *denied* by <@${userId}>. This rehearsal ends here; the real change is not vetoed.`
        : `:no_entry: ${what} was *denied* by <@${userId}>. Automation will not do it.`,
    ),
  );
  return {
    outcome: 'denied',
    userId,
    requestId: original.requestId,
    ...reply.warned(),
    // Denied all the same; only a later retry of it could be taken once more (the same veto again).
    ...(marked.settled && 'error' in marked ? { error: marked.error } : {}),
  };
}
