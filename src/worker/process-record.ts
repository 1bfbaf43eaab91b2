/**
 * One SQS record, start to end: validate (poison → DLQ), replay a completed effect, ask the
 * policy, and then deny, defer, ask a human, or claim the effect, take a counter unit and call
 * the Console API. Every decision and outcome ends in one log line, one audit record and the
 * replies. Throwing means "retry this record later" (the handler reports it as a batch item
 * failure); everything that returns has been dealt with for good.
 */
import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { RequesterSigner } from '../actions/proof.js';
import {
  type ActionRequest,
  actionTarget,
  effectKey,
  parseActionRequest,
  requesterKey,
} from '../actions/request.js';
import type { HttpSend } from '../http/send.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Decision, DecisionInput } from '../policy/decide.js';
import type { Policy } from '../policy/schema.js';
import { postToSlack, type SlackMessage } from '../slack/post.js';
import {
  clearNotified,
  type DecisionInputs,
  markNotified,
  readFinal,
  recordFinal,
  writeAudit,
} from '../state/audit.js';
import { consumeCounter, refundCounter } from '../state/counters.js';
import { claimEffect, completeEffect, releaseEffect, type StoredOutcome } from '../state/effects.js';
import { readRequestState } from '../state/request-state.js';
import type { StateTable } from '../state/table.js';
import { admit, type Refusal, type RequesterKeySource } from './admit.js';
import { sendToDeadLetter } from './dead-letter.js';
import { rateLimitBackoffSeconds, setVisibility } from './defer.js';
import { executeAction, type MutationClient } from './execute.js';
import { endHold, heldBecause, holdFor, nextLookFor } from './hold.js';
import {
  askMessage,
  FINAL_RESULTS,
  type OutcomeReport,
  type OutcomeResult,
  outcomeMessage,
  outcomeText,
} from './replies.js';

export interface RecordDeps {
  policy: Policy;
  decide: (policy: Policy, input: DecisionInput) => Decision;
  client: MutationClient;
  sqs: Pick<SQSClient, 'send'>;
  table: StateTable;
  queueUrl: string;
  dlqUrl: string;
  logger: Logger;
  /** EMF metrics: decisions, mutations sent, held requests, DLQ sends, failed Slack posts. */
  metrics: Metrics;
  now: () => Date;
  slack: { send?: HttpSend; allowedOrigins: string[]; timeoutMs?: number };
  /** Time kept free at the end of the invocation: no API attempt runs into it. */
  safetyMarginMs: number;
  /** How far an effect lock reaches beyond the invocation's end (a crashed worker's claim frees itself). */
  lockMarginMs: number;
  /** Keys that check who vouched for a requester; without them only `ci` requests are proven. */
  requesterKeys?: RequesterKeySource;
  /** Re-signs the copies the worker sends (deferrals) for the signer that vouched for the original. */
  signer?: RequesterSigner;
  /** The notifications channel's incoming-webhook URL (a secret: `slackWebhookUrl`). */
  channelUrl?: () => Promise<string | undefined>;
}

/** The channel's URL: from the secret; the policy's deprecated `notifications.slackWebhookUrl` otherwise. */
async function notificationsUrl(deps: RecordDeps): Promise<string | undefined> {
  return (await deps.channelUrl?.()) || deps.policy.notifications.slackWebhookUrl;
}

export interface RecordTiming {
  /** Milliseconds left in this invocation (Lambda's `context.getRemainingTimeInMillis`). */
  remainingMs(): number;
}

/** How a record ended, for the handler's summary and for tests. */
export type RecordResult = OutcomeResult | 'dead-lettered' | 'replayed';

/** Thrown to have the record retried (reported in `batchItemFailures`). */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

type Request = ActionRequest & { requestId: string };

interface RecordContext {
  record: SQSRecord;
  request: Request;
  key: string;
  log: Logger;
  timing: RecordTiming;
  /** What the policy decided from, for the audit record (`autopilot policy replay`). */
  inputs?: DecisionInputs;
  /** A held record of this request existed when it was read: it goes when the request ends. */
  held?: boolean;
}

export async function processRecord(
  deps: RecordDeps,
  record: SQSRecord,
  timing: RecordTiming,
): Promise<RecordResult> {
  const parsed = parseActionRequest(record.body);
  if (!parsed.ok) return deadLetter(deps, record, parsed.error, timing);
  const refusal = await admit(parsed.request, record, deps.requesterKeys, deps.now());
  if (refusal)
    return deadLetter(deps, record, refusal.reason, timing, { ...refusal, request: parsed.request });

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

  const now = deps.now();
  const { final, effect, pause, veto, held } = await readRequestState(deps.table, {
    requestId: request.requestId,
    effectKey: key,
  });
  ctx.held = held;
  // A copy of a request that already ended (SQS redelivery, producer retry): tell it again.
  if (final) return replay(deps, ctx, final);
  // The effect already happened for another request: tell, never call again.
  if (effect.status === 'completed') return replay(deps, ctx, effect.outcome);

  const decision = deps.decide(deps.policy, { request, now, pause, veto });
  // The Slack response_url is a short-lived capability: kept out of the audit trail.
  const { reply: _reply, ...kept } = request;
  ctx.inputs = { request: kept, now: now.toISOString(), pause, ...(veto ? { veto } : {}) };
  return apply(deps, ctx, decision, 0);
}

async function deadLetter(
  deps: RecordDeps,
  record: SQSRecord,
  error: string,
  timing: RecordTiming,
  /** A valid body refused before the policy (unproven requester, future date); else invalid. */
  refused?: Refusal & { request: ActionRequest },
): Promise<RecordResult> {
  // Claimed like an effect, so a redelivered copy is not dead-lettered twice, while a worker
  // that dies between claim and send leaves a lock that expires (the copy then sends it).
  const effect = `dead-letter#${record.messageId}`;
  const owner = `${record.messageId}/${randomUUID()}`;
  const claim = await claimEffect(deps.table, effect, {
    owner,
    lockExpiresAt: Date.now() + timing.remainingMs() + deps.lockMarginMs,
  });
  if (!claim.claimed) {
    if (claim.state.status === 'completed') return 'dead-lettered';
    throw new RetryLater(`message ${record.messageId} is being dead-lettered by another copy`);
  }
  const now = deps.now();
  let dlqMessageId: string | undefined;
  try {
    dlqMessageId = await sendToDeadLetter(deps.sqs, deps.dlqUrl, record, error, now);
  } catch (sendError) {
    // The DLQ did not take it: the record is retried, never dropped.
    await releaseEffect(deps.table, effect, owner);
    throw sendError;
  }
  const request = refused?.request;
  const requestId = request?.requestId ?? `sqs:${record.messageId}`;
  const reason = refused ? refused.reason : `not a valid action request: ${error}`;
  const rule = refused?.rule ?? 'validation';
  await Promise.all([
    completeEffect(deps.table, effect, owner, {
      result: 'dead-lettered',
      reason,
      rule,
      requestId,
      at: now.toISOString(),
    }),
    writeAudit(deps.table, {
      requestId,
      at: now,
      action: request?.action ?? 'unknown',
      target: request ? actionTarget(request) : 'unknown',
      effectKey: effect,
      // What the message claimed: refused, so never trusted, but worth seeing in the trail.
      requester: request ? `unproven ${requesterKey(request.requestedBy)}` : 'unknown',
      rule,
      reason,
      result: 'dead-lettered',
      dryRun: false,
      messageId: record.messageId,
    }),
  ]);
  const dlqReason =
    rule === 'requester-not-proven'
      ? 'not-proven'
      : rule === 'requested-in-future'
        ? 'future-dated'
        : 'invalid';
  const properties = { requestId, messageId: record.messageId };
  deps.metrics.put('DeadLettered', 1, { Reason: dlqReason }, properties);
  deps.metrics.put('Decisions', 1, { Action: request?.action ?? 'unknown', Outcome: dlqReason }, properties);
  deps.logger.warn(
    refused ? 'refused action request sent to the DLQ' : 'invalid action request sent to the DLQ',
    {
      result: 'dead-lettered',
      requestId,
      messageId: record.messageId,
      dlqMessageId,
      ...(refused ? { rule, reason } : { error }),
    },
  );
  return 'dead-lettered';
}

async function apply(
  deps: RecordDeps,
  ctx: RecordContext,
  decision: Decision,
  depth: number,
): Promise<RecordResult> {
  const { request } = ctx;
  const base = { rule: decision.rule, reason: decision.reason, dryRun: decision.dryRun };
  switch (decision.outcome) {
    case 'deny':
      return finish(deps, ctx, { ...base, result: 'denied' });
    case 'defer': {
      const now = deps.now();
      // A defer without a time would spin; the policy always sets one, but be safe: 15 min.
      const until = decision.deferUntil ?? new Date(now.getTime() + 15 * 60_000);
      const why = heldBecause(decision, depth);
      deps.metrics.put('HeldRequests', 1, { Why: why }, { requestId: request.requestId });
      await writeAuditFor(deps, ctx, { ...base, result: 'deferred', deferUntil: until });
      // Held in the table, not re-sent with a delay: the release tick brings it back.
      const nextLook = nextLookFor(why, until, deps.policy, request, now);
      await holdFor(deps.table, request, { why, decision, nextLook }, now);
      ctx.held = true;
      return finish(
        deps,
        ctx,
        { ...base, result: 'deferred', deferUntil: until },
        // Tell people once per request and rule, not every 15 minutes.
        { audit: false, notifyTopic: `deferred#${decision.rule}` },
      );
    }
    case 'ask':
      return ask(deps, ctx, decision);
    case 'approve':
      if (decision.dryRun) return finish(deps, ctx, { ...base, result: 'would-mutate' });
      if (depth > 0) {
        // `exceeded` is never an approval; if it were, approving past the limit would be wrong.
        return finish(deps, ctx, { ...base, result: 'denied', reason: `${decision.reason} (limit reached)` });
      }
      return mutate(deps, ctx, decision);
  }
}

async function ask(deps: RecordDeps, ctx: RecordContext, decision: Decision): Promise<RecordResult> {
  const base = { rule: decision.rule, dryRun: decision.dryRun };
  const webhook = await notificationsUrl(deps);
  if (!webhook) {
    return finish(deps, ctx, {
      ...base,
      result: 'denied',
      reason: `${decision.reason}; but no notifications channel (slackWebhookUrl) is set to ask in, so it is denied`,
    });
  }
  const message = askMessage(ctx.request, decision);
  deps.metrics.put('HeldRequests', 1, { Why: 'ask' }, { requestId: ctx.request.requestId });
  if (!message) {
    return finish(deps, ctx, {
      ...base,
      result: 'denied',
      reason: `${decision.reason}; but the request is too large to carry in Slack buttons, so it is denied`,
    });
  }
  const now = deps.now();
  // Claim the question first so that copies of this message never ask twice.
  if (await markNotified(deps.table, ctx.request.requestId, 'ask', now)) {
    const posted = await postToSlack(webhook, message, deps.slack);
    if (!posted.ok) {
      deps.metrics.put('SlackPostsFailed', 1, {}, { requestId: ctx.request.requestId });
      // Nobody was asked: give the marker back and retry later rather than wait forever.
      await clearNotified(deps.table, ctx.request.requestId, 'ask');
      throw new RetryLater(`cannot post the question to Slack: ${posted.error}`);
    }
  }
  const reason = `${decision.reason}; waiting for Approve or Deny in the notifications channel`;
  const nextLook = nextLookFor('ask', now, deps.policy, ctx.request, now);
  await holdFor(deps.table, ctx.request, { why: 'ask', decision: { ...decision, reason }, nextLook }, now);
  ctx.held = true;
  return finish(
    deps,
    ctx,
    { ...base, result: 'asked', reason },
    // The question itself went to the channel; the requester's reply says it was asked.
    { channel: false },
  );
}

async function mutate(deps: RecordDeps, ctx: RecordContext, decision: Decision): Promise<RecordResult> {
  const { request, key, timing, record } = ctx;
  const owner = `${request.requestId}/${record.messageId}/${randomUUID()}`;
  // Wall clock on purpose: a lock outlives the invocation, whatever the policy's clock says.
  const lockExpiresAt = Date.now() + timing.remainingMs() + deps.lockMarginMs;
  const claim = await claimEffect(deps.table, key, { owner, lockExpiresAt });
  if (!claim.claimed) {
    if (claim.state.status === 'completed') return replay(deps, ctx, claim.state.outcome);
    // Another copy is executing right now. Come back when its lock would have expired at the
    // latest: by then it has completed (we replay) or crashed (we claim).
    const waitSeconds = Math.ceil((claim.state.lockExpiresAt - Date.now()) / 1000) + 1;
    await setVisibility(deps.sqs, deps.queueUrl, record.receiptHandle, Math.max(1, waitSeconds));
    throw new RetryLater(`effect ${key} is being executed by another copy`);
  }
  // Cancelled (or ended by another copy) after our first read: the claim goes back, no call.
  const endedMeanwhile = ctx.held ? await readFinal(deps.table, request.requestId) : undefined;
  if (endedMeanwhile) {
    await releaseEffect(deps.table, key, owner);
    return replay(deps, ctx, endedMeanwhile);
  }

  if (decision.counter) {
    const taken = await consumeCounter(deps.table, decision.counter).catch(async (error: unknown) => {
      await releaseEffect(deps.table, key, owner);
      throw error;
    });
    if (!taken.ok) {
      await releaseEffect(deps.table, key, owner);
      ctx.log.info('limit reached', { counter: decision.counter.key, limit: decision.counter.limit });
      return apply(deps, ctx, decision.counter.exceeded, 1);
    }
  }

  const deadline = Date.now() + timing.remainingMs() - deps.safetyMarginMs;
  const outcome = await executeAction(deps.client, request, { deadline });
  // Sent and answered (done, stale or refused); a transient failure is retried and counted then.
  if (outcome.kind !== 'transient')
    deps.metrics.put('MutationsSent', 1, { Action: request.action }, { requestId: request.requestId });
  const base = { rule: decision.rule, dryRun: false };

  if (outcome.kind === 'transient') {
    await releaseEffect(deps.table, key, owner);
    if (decision.counter) await refundCounter(deps.table, decision.counter);
    if (outcome.rateLimited) {
      const receives = Number(record.attributes?.ApproximateReceiveCount ?? '1');
      const seconds = rateLimitBackoffSeconds(outcome.retryAfterMs, receives);
      await setVisibility(deps.sqs, deps.queueUrl, record.receiptHandle, seconds);
      ctx.log.warn('rate limited; backing off through the message visibility', { backoffSeconds: seconds });
    }
    throw new RetryLater(`transient failure: ${outcome.reason}`, { cause: outcome.error });
  }

  const result: OutcomeResult = outcome.kind === 'done' ? outcome.result : outcome.kind;
  const reason = outcome.kind === 'done' ? `${outcome.reason}; ${decision.reason}` : outcome.reason;
  const stored: StoredOutcome = {
    result,
    reason,
    rule: decision.rule,
    requestId: request.requestId,
    at: deps.now().toISOString(),
  };
  if (outcome.kind === 'done') {
    // The mutation happened: every later request for this effect is told so.
    await completeEffect(deps.table, key, owner, stored);
  } else {
    // Stale or refused: nothing changed, so the claim goes back (the phase may become current
    // later and another request deserves a call); copies of this request replay the final.
    const first = await recordFinal(deps.table, stored, deps.now());
    await releaseEffect(deps.table, key, owner);
    if (!first) {
      // A copy of this request ended between our first read and our claim; its call changed
      // nothing and neither did ours (a guard failure is not a mutation): tell its outcome.
      const earlier = await readFinal(deps.table, request.requestId);
      if (earlier) return replay(deps, ctx, earlier);
    }
  }
  return finish(deps, ctx, { ...base, result, reason }, { finalRecorded: true });
}

async function replay(deps: RecordDeps, ctx: RecordContext, stored: StoredOutcome): Promise<RecordResult> {
  const sameRequest = stored.requestId === ctx.request.requestId;
  await finish(
    deps,
    ctx,
    {
      result: stored.result as OutcomeResult,
      rule: stored.rule,
      reason: sameRequest ? stored.reason : `${stored.reason} (request ${stored.requestId}, ${stored.at})`,
      dryRun: false,
      replayOf: stored.requestId,
    },
    // The channel heard it the first time; the requester hears it again.
    { channel: false, auditResult: 'replayed' },
  );
  return 'replayed';
}

interface Finished {
  result: OutcomeResult;
  rule: string;
  reason: string;
  dryRun: boolean;
  deferUntil?: Date;
  replayOf?: string;
}

async function writeAuditFor(
  deps: RecordDeps,
  ctx: RecordContext,
  done: Finished,
  auditResult?: string,
): Promise<void> {
  await writeAudit(deps.table, {
    requestId: ctx.request.requestId,
    at: deps.now(),
    action: ctx.request.action,
    target: actionTarget(ctx.request),
    effectKey: ctx.key,
    requester: requesterKey(ctx.request.requestedBy),
    rule: done.rule,
    reason: done.reason,
    result: auditResult ?? done.result,
    dryRun: done.dryRun,
    messageId: ctx.record.messageId,
    ...(done.deferUntil ? { deferUntil: done.deferUntil.toISOString() } : {}),
    ...(done.replayOf ? { replayOf: done.replayOf } : {}),
    ...(ctx.inputs && !done.replayOf ? { inputs: ctx.inputs } : {}),
  });
}

/** The log line, the audit record and the replies of one decision or outcome. */
async function finish(
  deps: RecordDeps,
  ctx: RecordContext,
  done: Finished,
  options: {
    audit?: boolean;
    channel?: boolean;
    notifyTopic?: string;
    auditResult?: string;
    /** The outcome is already stored (a completed effect, or a final recorded before the claim went back). */
    finalRecorded?: boolean;
  } = {},
): Promise<RecordResult> {
  const report: OutcomeReport = { request: ctx.request, requestId: ctx.request.requestId, ...done };
  deps.metrics.put(
    'Decisions',
    1,
    { Action: ctx.request.action, Outcome: options.auditResult ?? done.result },
    { requestId: ctx.request.requestId, rule: done.rule },
  );
  ctx.log.info(outcomeText(report), {
    result: options.auditResult ?? done.result,
    outcome: done.result,
    rule: done.rule,
    reason: done.reason,
    dryRun: done.dryRun,
    action: ctx.request.action,
    target: actionTarget(ctx.request),
    ...(done.deferUntil ? { deferUntil: done.deferUntil.toISOString() } : {}),
    ...(done.replayOf ? { replayOf: done.replayOf } : {}),
  });
  const writes: Array<Promise<unknown>> = [];
  if (FINAL_RESULTS.has(done.result) && !done.replayOf && !options.finalRecorded) {
    const final = {
      result: done.result,
      reason: done.reason,
      rule: done.rule,
      requestId: ctx.request.requestId,
      at: deps.now().toISOString(),
    };
    writes.push(recordFinal(deps.table, final, deps.now()));
  }
  if (options.audit !== false) writes.push(writeAuditFor(deps, ctx, done, options.auditResult));
  // The request ended (or a copy told its end again): it is no longer held.
  if (ctx.held && (FINAL_RESULTS.has(done.result) || done.replayOf)) {
    writes.push(endHold(deps.table, ctx.request.requestId));
    ctx.held = false;
  }
  await Promise.all(writes);

  if (options.notifyTopic) {
    const first = await markNotified(deps.table, ctx.request.requestId, options.notifyTopic, deps.now());
    if (!first) return done.result;
  }
  const message = outcomeMessage(report);
  const targets: string[] = [];
  if (ctx.request.reply?.slackResponseUrl) targets.push(ctx.request.reply.slackResponseUrl);
  const channel = await notificationsUrl(deps);
  if (channel && options.channel !== false) targets.push(channel);
  await Promise.all(targets.map((url) => reply(deps, ctx, url, message)));
  return done.result;
}

async function reply(
  deps: RecordDeps,
  ctx: RecordContext,
  url: string,
  message: SlackMessage,
): Promise<void> {
  const posted = await postToSlack(url, message, deps.slack);
  // A reply that cannot be delivered does not undo or retry the work; it is logged (without the URL's path).
  if (!posted.ok) {
    deps.metrics.put('SlackPostsFailed', 1, {}, { requestId: ctx.request.requestId });
    ctx.log.warn('reply not delivered', { error: posted.error, status: posted.status });
  }
}
