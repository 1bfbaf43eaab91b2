/**
 * Telling one ending (finish.ts decides which, and under which claim): the metric, the log line,
 * the posts to the requester and the channel, and the audit record. The posts come before the
 * audit record, which is what marks a stored end told (a copy finding it replays the end without
 * the channel): a process that dies between the two (a timeout, an out-of-memory kill) leaves the
 * end untold, and the redelivered copy tells it again, twice rather than never.
 */
import { randomUUID } from 'node:crypto';
import { actionTarget, requesterKey } from '../actions/request.js';
import type { SlackMessage } from '../slack/post.js';
import { writeAudit } from '../state/audit.js';
import { endHold } from '../state/held.js';
import { claimNotice, noticeTold, recordTold } from '../state/telling.js';
import { endAnsweredQuestion } from './answered.js';
import { answeredQuestion } from './hold.js';
import { currentDate, lockExpiry, type RecordContext, type RecordDeps, type RecordResult } from './record.js';
import { FINAL_RESULTS, type OutcomeReport, outcomeMessage, outcomeText } from './replies.js';
import { postAll, postOptions, tellTargets } from './tell.js';

/** An outcome as the record path knows it: the report a reply is built from, less the request. */
export type Finished = Omit<OutcomeReport, 'request' | 'requestId'> & {
  /** A person's answer ended it (the stored end another pass wrote: src/worker/answered.ts): who. */
  answeredBy?: string;
  /** The release tick ended it at its expiry (the stored end another pass wrote: src/worker/stuck.ts). */
  stuckExpired?: boolean;
  /** Another pass (or copy) recorded this end and died before telling it: told again here (logged `retold`). */
  retold?: boolean;
};

/** How one kind of ending is told (finish.ts `TELLING`). */
export interface TellingRow {
  audit: boolean;
  storeFinal: boolean;
  channel: boolean;
  once: boolean;
  auditAs?: 'replayed';
}

/** A telling this copy holds: given back when its telling fails before the audit record. */
export interface HeldTelling {
  release(): Promise<void>;
  /** An earlier copy posted this end and failed to record it (`markToldUnrecorded`): recorded only. */
  told?: boolean;
}

/** Who claims a telling: this copy of the message, apart from its other deliveries. */
export const ownerFor = (ctx: RecordContext) => `${ctx.record.messageId}/${randomUUID()}`;

export async function writeAuditFor(
  deps: RecordDeps,
  ctx: RecordContext,
  done: Finished,
  auditResult?: string,
): Promise<void> {
  await writeAudit(deps.table, {
    requestId: ctx.request.requestId,
    at: currentDate(deps),
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
    ...(done.answeredBy ? { answeredBy: done.answeredBy } : {}),
    ...(done.stuckExpired ? { stuckExpired: true } : {}),
    ...(done.mayHaveBeenDone === undefined ? {} : { mayHaveBeenDone: done.mayHaveBeenDone }),
    // The inputs of this copy's decision, when that decision is what ended it: not a replay, nor
    // another pass's end that no policy decided (a person's answer, the tick's expiry).
    // Which policy made that decision: after a redeploy, `why` and `policy replay` tell it apart.
    ...(ctx.inputs && !done.replayOf && !done.answeredBy && !done.stuckExpired
      ? { inputs: ctx.inputs, policyDigest: deps.policyDigest }
      : {}),
  });
}

/**
 * Tells one ending. `claimed`: the telling of a stored end this copy holds (finish.ts). Until the
 * audit record is written (`progress.audited`), a failure leaves the end untold for the record's
 * retry (finish.ts gives the claim back); after it, the end is told whatever else failed.
 */
export async function tellEnd(
  deps: RecordDeps,
  ctx: RecordContext,
  done: Finished,
  telling: TellingRow,
  result: string,
  progress: { audited: boolean },
  claimed?: HeldTelling,
): Promise<RecordResult> {
  const { request } = ctx;
  const report: OutcomeReport = { request, requestId: request.requestId, ...done };
  deps.metrics.put(
    'Decisions',
    1,
    { Action: request.action, Outcome: result },
    { requestId: request.requestId, rule: done.rule },
  );
  ctx.log.info(outcomeText(report), {
    result,
    outcome: done.result,
    rule: done.rule,
    reason: done.reason,
    dryRun: done.dryRun,
    action: request.action,
    target: actionTarget(request),
    ...(done.deferUntil ? { deferUntil: done.deferUntil.toISOString() } : {}),
    ...(done.replayOf ? { replayOf: done.replayOf } : {}),
    ...(done.retold ? { retold: true } : {}),
  });
  // Where it is told is read first (the channel's URL is a secret, whose read can fail): failing
  // here, nothing was told.
  const targets = await tellTargets(deps, ctx, telling.channel);
  // An end told without a claim (an asked request's reply, a copy's replay) is not marked told by
  // its audit record: its retry tells it whatever. Its record goes first, as it did, so that a
  // failed put is retried before anything is posted, rather than after (the requester read it twice).
  const recordFirst = telling.audit && !claimed;
  if (recordFirst) await writeAuditFor(deps, ctx, done, telling.auditAs);
  const steps: Array<Promise<unknown>> = [];
  // The request ended (or a copy told its end again): it is no longer held.
  if (ctx.held && (FINAL_RESULTS.has(done.result) || done.replayOf)) {
    steps.push(endHold(deps.table, request.requestId));
    ctx.held = false;
  }
  // The answer to a question (an Approve click's copy) ends the asked request with it; a copy
  // that replays an end does too (another request's change: nothing is on its way, and the
  // question would otherwise say so until its hourly look). An ended question is left alone.
  const asked = FINAL_RESULTS.has(done.result) ? answeredQuestion(request) : undefined;
  if (asked) steps.push(endAnsweredQuestion(deps, asked, request, done, postOptions(deps, ctx)));
  // The posts, beside those writes and before the audit record (the told mark): no DynamoDB round
  // trip is added, and a process dying anywhere before the record leaves the end to be told again.
  const posted = !claimed?.told;
  if (posted) steps.push(postEnd(deps, ctx, telling, done.rule, targets, outcomeMessage(report)));
  const settled = await Promise.allSettled(steps);
  if (telling.audit && !recordFirst) await auditEnd(deps, ctx, done, telling, Boolean(claimed) && posted);
  // A replay's record marks nothing new: the end it repeats was told already.
  progress.audited = telling.audit && !telling.auditAs;
  // Ending the hold or the question failed: the end is told (and recorded, or its claim goes back),
  // and the retry, which replays the end, does the step again.
  const failed = settled.find((step) => step.status === 'rejected');
  if (failed) throw failed.reason;
  return done.result;
}

/**
 * The posts of an ending. A deferral is told once per request and rule (it may be looked at again
 * many times), under a claim with a lease, marked told after the posts: a process dying before
 * them leaves it to the next look.
 */
async function postEnd(
  deps: RecordDeps,
  ctx: RecordContext,
  telling: TellingRow,
  rule: string,
  targets: string[],
  message: SlackMessage,
): Promise<void> {
  if (!telling.once) return postAll(deps, ctx, targets, message);
  const { requestId } = ctx.request;
  const topic = `deferred#${rule}`;
  const owner = ownerFor(ctx);
  const claim = { owner, nowMs: deps.clock(), untilMs: lockExpiry(deps, ctx.timing) };
  if (!(await claimNotice(deps.table, requestId, topic, claim))) return;
  await postAll(deps, ctx, targets, message);
  // Not marked: the lease runs out, and the next look tells it again (twice rather than never).
  await noticeTold(deps.table, requestId, topic, owner, currentDate(deps)).catch((error: unknown) =>
    ctx.log.warn('deferral told, but not marked told: the next look tells it again', { error }),
  );
}

/**
 * The audit record of an ending. Failing after the posts of a claimed end, the end is marked told
 * apart (a write on that failure only), so that the retry records it without telling it again.
 */
async function auditEnd(
  deps: RecordDeps,
  ctx: RecordContext,
  done: Finished,
  telling: TellingRow,
  posted: boolean,
): Promise<void> {
  const write = () => writeAuditFor(deps, ctx, done, telling.auditAs);
  if (!posted) return write();
  await recordTold(deps.table, ctx.request.requestId, currentDate(deps), write, (failed: unknown) =>
    ctx.log.warn('end told, but neither recorded nor marked told: its retry tells it again', {
      error: failed,
    }),
  );
}
