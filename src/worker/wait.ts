/**
 * A request that must wait: deferred (paused, outside its window, over a limit) or asked (a
 * person answers in the notifications channel). Either way it is held in the state table
 * (hold.ts), where the release tick finds it and `/autopilot cancel` can end it; nothing here
 * calls the Console API.
 */
import { askedWhere } from '../policy/ask-channel.js';
import type { Decision } from '../policy/decide.js';
import { postToSlack } from '../slack/post.js';
import type { HeldRecord, HeldWhy, HoldOutcome } from '../state/held.js';
import { claimNotice, noticeTold, releaseNotice } from '../state/telling.js';
import { RetryLater } from './errors.js';
import { endCancelled, finish, writeAuditFor } from './finish.js';
import { heldBecause, holdFor, nextLookFor } from './hold.js';
import {
  currentDate,
  lockExpiry,
  notificationsUrl,
  type RecordContext,
  type RecordDeps,
  type RecordResult,
} from './record.js';
import { askMessage } from './replies.js';
import { ownerFor } from './tell-end.js';

export async function defer(
  deps: RecordDeps,
  ctx: RecordContext,
  decision: Decision,
  overLimit: boolean,
): Promise<RecordResult> {
  const { request } = ctx;
  const now = currentDate(deps);
  // A defer without a time would spin; the policy always sets one, but be safe: 15 min.
  const until = decision.deferUntil ?? new Date(now.getTime() + 15 * 60_000);
  const why = heldBecause(decision, overLimit);
  const done = {
    rule: decision.rule,
    reason: decision.reason,
    dryRun: decision.dryRun,
    result: 'deferred' as const,
    // A pause has no next look: `resume` releases it.
    ...(why === 'paused' ? {} : { deferUntil: until }),
  };
  await writeAuditFor(deps, ctx, done);
  // Held in the table, not re-sent with a delay: the release tick brings it back.
  const nextLook = nextLookFor(why, until, deps.policy, request, now);
  const stopped = unlessHeld(
    deps,
    ctx,
    await holdFor(
      deps.table,
      request,
      { why, decision, nextLook, existing: ctx.held === true, policyDigest: deps.policyDigest },
      now,
    ),
    why,
  );
  if (stopped) return stopped;
  return finish(deps, ctx, done, 'deferred');
}

export async function ask(deps: RecordDeps, ctx: RecordContext, decision: Decision): Promise<RecordResult> {
  const base = { rule: decision.rule, dryRun: decision.dryRun };
  const webhook = await notificationsUrl(deps);
  // No one to ask, or a request too large for the buttons: denied, by the rule `policy replay`,
  // `policy test` and `policy explain` apply too (src/policy/ask-channel.ts).
  const carried = askedWhere(decision, Boolean(webhook), ctx.request);
  const message = askMessage(ctx.request, decision);
  if (carried.outcome !== 'ask' || !webhook || !message) {
    return finish(deps, ctx, { ...base, result: 'denied', reason: carried.reason }, 'decided');
  }
  // Held before it is asked: a click is only taken for a question held open (src/webhook/open-question.ts).
  const reason = `${decision.reason}; waiting for Approve or Deny in the notifications channel`;
  const stopped = await holdQuestion(deps, ctx, { ...decision, reason });
  if (stopped) return stopped;
  // Claimed under a lease, posted, then marked asked (as a deferral is told: tell-end.ts): copies
  // of this message never ask twice, and a process dying before the post (a timeout, an
  // out-of-memory kill) holds the claim no longer once the lease ran out, so the redelivered copy
  // asks (twice rather than never). Marked before the post, nobody was ever asked and the request
  // was denied at its expiry.
  const { requestId } = ctx.request;
  const owner = ownerFor(ctx);
  const claim = { owner, nowMs: deps.clock(), untilMs: lockExpiry(deps, ctx.timing) };
  if (await claimNotice(deps.table, requestId, 'ask', claim)) {
    const posted = await postToSlack(webhook, message, deps.slack);
    if (!posted.ok) {
      deps.metrics.put('SlackPostsFailed', 1, {}, { requestId });
      // Nobody was asked: give the claim back and retry later rather than wait forever (the
      // hold stays; the retry writes it again, or the tick brings the request back). Only our own
      // claim: past its lease another copy may have claimed the question, or asked it.
      await releaseNotice(deps.table, requestId, 'ask', owner);
      throw new RetryLater(`cannot post the question to Slack: ${posted.error}`);
    }
    // Not marked: the lease runs out, and the next look asks again (twice rather than never).
    await noticeTold(deps.table, requestId, 'ask', owner, currentDate(deps)).catch((error: unknown) =>
      ctx.log.warn('question asked, but not marked asked: the next look asks again', { error }),
    );
  }
  return finish(deps, ctx, { ...base, result: 'asked', reason }, 'asked');
}

/**
 * A look at a question that reaches the worker past its expiry (the tick sent it back before, a
 * back-off or a backlog held it up) while an Approve click taken before the expiry may still have
 * its copy on the queue (answer-pending.ts): denied as expired here, the copy would pass that
 * denial on to the person who approved in time. It is held again as a look before the expiry
 * holds an answered question (asked already: nobody is asked again), and the answer's copy ends it.
 * Audited without the decision's inputs: no policy decided it (the policy says expired).
 */
export async function awaitAnswer(
  deps: RecordDeps,
  ctx: RecordContext,
  held: HeldRecord,
  dryRun: boolean,
): Promise<RecordResult> {
  const decision: Decision = { outcome: 'ask', rule: held.rule, reason: held.reason, dryRun };
  const stopped = await holdQuestion(deps, ctx, decision);
  if (stopped) return stopped;
  const reason = `${held.reason}; approved by ${held.answeredBy} before its expiry: that answer ends it`;
  return finish(deps, ctx, { rule: held.rule, dryRun, result: 'asked', reason }, 'asked');
}

/** Holds the question `decision` asks (its reason as held), looked at again at its next look. */
async function holdQuestion(
  deps: RecordDeps,
  ctx: RecordContext,
  decision: Decision,
): Promise<RecordResult | undefined> {
  const now = currentDate(deps);
  const nextLook = nextLookFor('ask', now, deps.policy, ctx.request, now);
  const wait = {
    why: 'ask' as const,
    decision,
    nextLook,
    existing: ctx.held === true,
    policyDigest: deps.policyDigest,
  };
  return unlessHeld(deps, ctx, await holdFor(deps.table, ctx.request, wait, now), 'ask');
}

/**
 * After writing a wait: undefined when the request is held now; otherwise how it ends. A cancel
 * marked since our read wins (ended here as cancelled); a request another copy ended meanwhile
 * is retried, and the retry replays that copy's final.
 */
function unlessHeld(
  deps: RecordDeps,
  ctx: RecordContext,
  outcome: HoldOutcome,
  why: HeldWhy,
): Promise<RecordResult> | undefined {
  ctx.held = outcome.state !== 'ended';
  if (outcome.state === 'held') {
    // Once per holding, when it begins: a held request is deferred or asked again at each look
    // the tick sends it back for (and by retried or redelivered copies); counting those would
    // tell more requests waiting than there are.
    if (outcome.began)
      deps.metrics.put('HeldRequests', 1, { Why: why }, { requestId: ctx.request.requestId });
    return undefined;
  }
  if (outcome.state === 'cancelled') return endCancelled(deps, ctx, outcome.cancel);
  throw new RetryLater(`request ${ctx.request.requestId} ended while this copy held it again`, {
    otherCopy: true,
  });
}
