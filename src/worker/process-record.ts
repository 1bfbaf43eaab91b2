/**
 * One SQS record, start to end: validate (poison → DLQ), replay a completed effect, ask the
 * policy, and then deny, defer, ask a human, or claim the effect, take a counter unit and call
 * the Console API (a request that must wait is held: wait.ts). Every decision and outcome ends
 * in one log line, one audit record and the replies (finish.ts). Throwing means "retry this record later" (the handler reports it as a
 * batch item failure); everything that returns has been dealt with for good.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { effectKey, parseActionRequest, requesterKey } from '../actions/request.js';
import { type Decision, isDryRun } from '../policy/decide.js';
import { readFinal, recordFinal } from '../state/audit.js';
import { consumeCounter, refundCounter } from '../state/counters.js';
import { completeEffect, releaseEffect, releaseReached, type StoredOutcome } from '../state/effects.js';
import { stopExecutingHeld } from '../state/held-gates.js';
import { readRequestState } from '../state/request-state.js';
import { admit, idTakenRefusal } from './admit.js';
import { answerPendingPastExpiry } from './answer-pending.js';
import { deadLetterRecord } from './dead-letter.js';
import { claim } from './effect-claim.js';
import { copyOfGivenUp, endCopyOfGivenUp } from './ended-copy.js';
import { executeAction } from './execute.js';
import { stoppedSinceRead } from './executing-gate.js';
import { failedForNow } from './failed-for-now.js';
import { endCancelled, finish, type HeldTelling, recordFinalClaimed, type StoredEnd } from './finish.js';
import { tellingIfGivenUp } from './give-up.js';
import { answeredQuestion } from './hold.js';
import { clearIfLastReceive, markIfLastReceive } from './last-receive.js';
import {
  currentDate,
  notificationsUrl,
  ownerOf,
  type RecordContext,
  type RecordDeps,
  type RecordResult,
  type RecordTiming,
  type Request,
  stateSubject,
} from './record.js';
import { replay } from './replay-end.js';
import type { OutcomeResult } from './replies.js';
import { ask, awaitAnswer, defer } from './wait.js';

export type { RecordDeps, RecordResult, RecordTiming };

/**
 * `proven` is set to the request's id once its requester is proven: until then the id in the body
 * is a claim, and the handler's line for a record that fails is named by the message id.
 */
export async function processRecord(
  deps: RecordDeps,
  record: SQSRecord,
  timing: RecordTiming,
  proven: { requestId?: string } = {},
): Promise<RecordResult> {
  const parsed = parseActionRequest(record.body);
  if (!parsed.ok) return deadLetterRecord(deps, record, parsed.error, timing);
  const refusal = await admit(parsed.request, record, deps.requesterKeys, currentDate(deps));
  if (refusal?.rule !== 'requester-not-proven')
    proven.requestId = parsed.request.requestId ?? `sqs:${record.messageId}`;
  if (refusal)
    return deadLetterRecord(deps, record, refusal.reason, timing, { ...refusal, request: parsed.request });

  const request: Request = {
    ...parsed.request,
    // A stable id for everything that follows (deferred copies keep it): the producer's, or ours.
    requestId: parsed.request.requestId ?? `sqs:${record.messageId}`,
  };
  const key = effectKey(request);
  const ctx: RecordContext = {
    record,
    request,
    key,
    timing,
    log: deps.logger.child({
      requestId: request.requestId,
      messageId: record.messageId,
      effectKey: key,
      requester: requesterKey(request.requestedBy),
    }),
  };

  // On the last receive, before any work: a copy that dies from here on is told by the release tick
  // (unless it does not own its id: the tick reads the request and tells it nothing, dead-attempts.ts).
  await markIfLastReceive(deps, ctx);
  const now = currentDate(deps);
  const state = await readRequestState(deps.table, stateSubject(deps.policy, request, key), now.getTime());
  const { final, effect, pause, veto, held, heldOwner, cancel, lastExposure, eventsReadUpTo } = state;
  // The id belongs to another requester's request (held, or ended): this message is not a copy of
  // it and must not end, replay or replace it. Nothing under the id is touched.
  // Its last receive's mark goes first: the release tick must never tell it the owner's end.
  const taken = idTakenRefusal(ownerOf(ctx), heldOwner ?? final?.owner, request.requestId);
  if (taken) {
    await clearIfLastReceive(deps, ctx);
    return deadLetterRecord(deps, record, taken.reason, timing, { ...taken, request: parsed.request });
  }
  ctx.held = held;
  // An earlier attempt may have made the change: its held item's marks, or its effect's claim (a
  // request that is not held: a retry, a copy redriven from the DLQ). A dry run calls nothing.
  ctx.reached = state.reached || (state.effectReached && !isDryRun(deps.policy, request));
  ctx.formerClaimReached = state.formerEffectReached;
  // A copy of a request that already ended (SQS redelivery, producer retry): tell it again.
  if (final) return replay(deps, ctx, final);
  // The effect already happened for another request: tell, never call again.
  if (effect.status === 'completed') return replay(deps, ctx, effect.outcome);
  // Cancelled while held (`/autopilot cancel`): it ends here, told to the requester and the channel.
  if (cancel) return endCancelled(deps, ctx, cancel);
  // Given up (no final), and this message, the same request's, was sent before that: a copy of it.
  if (state.givenUp && copyOfGivenUp(record, ownerOf(ctx), state.givenUp))
    return endCopyOfGivenUp(deps, ctx, state.givenUp);

  // From here a failure is the request's own: on the record's last receive its people are told.
  return tellingIfGivenUp(deps, ctx, async () => {
    const decision = deps.decide(deps.policy, { request, now, pause, veto, lastExposure, eventsReadUpTo });
    // Expired, but answered in time and that answer's copy may still come: it ends the question
    // (a look the tick sent back before the click, run past the expiry). No inputs: no policy decided it.
    const { heldRecord: asked } = state;
    if (
      decision.rule === 'maxDeferHours' &&
      asked &&
      answerPendingPastExpiry(asked, deps.policy, now, deps.maxReceiveCount)
    )
      return awaitAnswer(deps, ctx, asked, decision.dryRun);
    // The Slack response_url is a short-lived capability: kept out of the audit trail.
    const { reply: _reply, ...kept } = request;
    ctx.inputs = {
      request: kept,
      now: now.toISOString(),
      pause,
      ...(veto ? { veto } : {}),
      ...(lastExposure === undefined ? {} : { lastExposure }),
      ...(eventsReadUpTo === undefined ? {} : { eventsReadUpTo }),
      // Whether an `ask` could be asked (wait.ts): a replay then denies it as the worker did.
      channel: Boolean(await notificationsUrl(deps)),
    };
    return apply(deps, ctx, decision);
  });
}

/**
 * Carries out a decision. An approval whose counter is full is decided again as the counter's
 * `exceeded` decision (a deferral to the next window, or a denial): a loop of at most two turns.
 */
async function apply(deps: RecordDeps, ctx: RecordContext, decided: Decision): Promise<RecordResult> {
  let decision = decided;
  let overLimit = false;
  for (;;) {
    const base = { rule: decision.rule, reason: decision.reason, dryRun: decision.dryRun };
    switch (decision.outcome) {
      case 'deny':
        return finish(deps, ctx, { ...base, result: 'denied' }, 'decided');
      case 'defer':
        return defer(deps, ctx, decision, overLimit);
      case 'ask':
        return ask(deps, ctx, decision);
      case 'approve': {
        if (decision.dryRun) return finish(deps, ctx, { ...base, result: 'would-mutate' }, 'decided');
        if (overLimit) {
          // `exceeded` is never an approval; if it were, approving past the limit would be wrong.
          const reason = `${decision.reason} (limit reached)`;
          return finish(deps, ctx, { ...base, result: 'denied', reason }, 'decided');
        }
        const mutated = await mutate(deps, ctx, decision);
        if (mutated.kind === 'ended') return mutated.result;
        decision = mutated.exceeded;
        overLimit = true;
      }
    }
  }
}

type Mutated = { kind: 'ended'; result: RecordResult } | { kind: 'over-limit'; exceeded: Decision };

/** Claims the effect, takes a counter unit, calls the Console API and stores what happened. */
async function mutate(deps: RecordDeps, ctx: RecordContext, decision: Decision): Promise<Mutated> {
  const { request, key, record } = ctx;
  const owner = `${request.requestId}/${record.messageId}/${randomUUID()}`;
  const claimed = await claim(deps, ctx, owner);
  if (typeof claimed === 'string') return { kind: 'ended', result: claimed };
  // The claim goes back; a mark that a call (this one or an earlier one) may have reached the
  // platform stays on the effect for the next claim.
  const giveBack = (reached: boolean) =>
    reached || claimed.earlierMayHaveReached
      ? releaseReached(deps.table, key, owner, currentDate(deps))
      : releaseEffect(deps.table, key, owner);
  // A held request, and the held question an Approve click's copy answers: say on their held
  // items that it is executing, unless one was cancelled first (a cancel then is refused).
  const question = answeredQuestion(request);
  const heldIds = [...(ctx.held ? [request.requestId] : []), ...(question ? [question] : [])];
  const stopped = await stoppedSinceRead(deps, ctx, owner, heldIds, claimed.earlierMayHaveReached);
  if (stopped) {
    await giveBack(false);
    return { kind: 'ended', result: await stopped() };
  }

  // Nothing reached the platform: the claim goes back, and a held request can be cancelled again.
  const letGo = async () => {
    await giveBack(false);
    for (const heldId of heldIds) await stopExecutingHeld(deps.table, heldId, owner);
  };
  // An earlier call for this effect may have made the change, and kept its unit for it (a lost
  // answer, a crash): this call makes that same change at most once, so it takes no second unit
  // (a retry of the request would otherwise be held as over its own limit).
  const unitTaken = decision.counter !== undefined && !claimed.earlierMayHaveReached;
  if (decision.counter && unitTaken) {
    const taken = await consumeCounter(deps.table, decision.counter).catch(async (error: unknown) => {
      await letGo();
      throw error;
    });
    if (!taken.ok) {
      await letGo();
      ctx.log.info('limit reached', { counter: decision.counter.key, limit: decision.counter.limit });
      return { kind: 'over-limit', exceeded: decision.counter.exceeded };
    }
  }

  const deadline = deps.clock() + ctx.timing.remainingMs() - deps.safetyMarginMs;
  const outcome = await executeAction(deps.client, request, { deadline }, claimed.earlierMayHaveReached);
  if (outcome.kind === 'transient')
    return failedForNow(
      deps,
      ctx,
      decision,
      outcome,
      {
        giveBack,
        letGo,
        heldIds,
        earlierMayHaveReached: claimed.earlierMayHaveReached,
      },
      unitTaken,
    );
  // Sent and answered (done, stale or refused); a transient failure is retried and counted then.
  deps.metrics.put('MutationsSent', 1, { Action: request.action }, { requestId: request.requestId });

  const result: OutcomeResult = outcome.kind === 'done' ? outcome.result : outcome.kind;
  const reason = outcome.kind === 'done' ? `${outcome.reason}; ${decision.reason}` : outcome.reason;
  let telling: HeldTelling | undefined;
  // A refusal or a stale phase after an attempt whose answer was lost may be that attempt's change:
  // stored with the final (what people and the CI gate read), never left to the reason's words.
  const maybe = outcome.kind === 'done' ? {} : { mayHaveBeenDone: outcome.mayHaveReached };
  const stored: StoredEnd = {
    result,
    reason,
    rule: decision.rule,
    requestId: request.requestId,
    at: currentDate(deps).toISOString(),
    ...maybe,
  };
  if (outcome.kind === 'done') {
    // The mutation happened: every later request for this effect is told so, and this request's
    // own end is its final (which no later record under its id can rewrite: an unproven message
    // claiming the id is dead-lettered with an audit record, never a final).
    // Its telling is claimed with the final (finish.ts): a copy finding the end untold before
    // the audit record stays silent while the claim holds.
    await completeEffect(deps.table, key, owner, stored, currentDate(deps));
    telling = await recordDoneFinal(deps, ctx, stored);
  } else {
    // Stale or refused: nothing changed, so the claim goes back (the phase may become current
    // later and another request deserves a call); copies of this request replay the final.
    // Its telling is claimed apart (finish.ts), after the claim went back: a failure here leaves
    // the end untold and unclaimed, for the retry to tell.
    const first = await recordFinal(deps.table, stored, currentDate(deps), ownerOf(ctx));
    // A refusal (or a stale phase) after an attempt that got no answer keeps the effect's mark:
    // that attempt may have made the change (and so moved the trigger past the phase).
    await giveBack(outcome.mayHaveReached);
    // A refusal changed nothing: its limit unit goes back, as after a 429 (a 404 for a deleted
    // config spent the day's archive). Kept when an earlier attempt may have made the change.
    if (decision.counter && unitTaken && !outcome.mayHaveReached)
      await refundCounter(deps.table, decision.counter);
    // A copy of this request ended between our first read and our claim; its call changed
    // nothing and neither did ours (a guard failure is not a mutation): tell its outcome.
    const earlier = first ? undefined : await readFinal(deps.table, request.requestId);
    if (earlier) return { kind: 'ended', result: await replay(deps, ctx, earlier) };
  }
  const done = { rule: decision.rule, dryRun: false, result, reason, ...maybe };
  return { kind: 'ended', result: await finish(deps, ctx, done, 'executed', telling) };
}

/** The final of a mutation done, with its telling claimed in the same put (none when a final was there). */
async function recordDoneFinal(
  deps: RecordDeps,
  ctx: RecordContext,
  stored: StoredOutcome,
): Promise<HeldTelling | undefined> {
  const written = await recordFinalClaimed(deps, ctx, stored, true);
  return typeof written === 'boolean' ? undefined : written;
}
