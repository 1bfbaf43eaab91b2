/**
 * The last receive. A record that fails on every receive is moved to the DLQ by SQS after the
 * queue's `maxReceiveCount` (src/queue/redrive.ts); the person who asked had been told "queued"
 * and would hear nothing more, and the audit trail would have no ending. So when the request's
 * own attempt fails on that receive, the worker writes a `dead-lettered` audit record (rule
 * `retries-exhausted`, with the last failure) and tells the requester and the channel, where its
 * outcomes are told (finish.ts). The record still fails: it must reach the DLQ, never be
 * dropped. Telling that fails is logged, never thrown.
 */
import { actionTarget, requesterKey } from '../actions/request.js';
import { isLastReceive, receivesOf } from '../queue/redrive.js';
import { writeAudit } from '../state/audit.js';
import { unmarkAnswered } from '../state/held-answer.js';
import type { RequestState } from '../state/request-state.js';
import { readRequestState } from '../state/request-state.js';
import { scrubSecrets } from '../util/secret-scrub.js';
import { RetryLater } from './errors.js';
import { answeredQuestion } from './hold.js';
import {
  currentDate,
  type RecordContext,
  type RecordDeps,
  type RecordResult,
  stateSubject,
} from './record.js';
import { type GivenUpReport, givenUpMessage, givenUpReason } from './replies.js';
import { tell } from './tell.js';

/** The audit record's rule, and the DLQ metric's reason. */
export const GIVEN_UP_RULE = 'retries-exhausted';
/** A failure is told, not dumped: an unexpected error's message can be long. */
const MAX_FAILURE_CHARS = 500;

/**
 * Runs the request's own attempt; if it fails on the record's last receive, tells that the
 * request was given up, then fails the record all the same (the handler reports it and SQS
 * moves it to the DLQ). A failure because another copy handles the request is not one.
 */
export async function tellingIfGivenUp(
  deps: RecordDeps,
  ctx: RecordContext,
  attempt: () => Promise<RecordResult>,
): Promise<RecordResult> {
  try {
    return await attempt();
  } catch (error) {
    const otherCopy = error instanceof RetryLater && error.otherCopy;
    if (!otherCopy && isLastReceive(ctx.record, deps.maxReceiveCount)) await tellGivenUp(deps, ctx, error);
    throw error;
  }
}

async function tellGivenUp(deps: RecordDeps, ctx: RecordContext, error: unknown): Promise<void> {
  const fields = { receives: receivesOf(ctx.record), maxReceiveCount: deps.maxReceiveCount };
  let state: RequestState;
  try {
    state = await readRequestState(deps.table, stateSubject(deps.policy, ctx.request, ctx.key), deps.clock());
  } catch (readError) {
    ctx.log.error('last receive failed and the request could not be read: nobody was told it was given up', {
      ...fields,
      error: readError,
    });
    return;
  }
  // Ended meanwhile (its DLQ copy replays that end), or held (the release tick sends it again):
  // not given up, and "could not be done" would not be true.
  if (state.final || state.effect.status === 'completed' || state.held) {
    ctx.log.info('last receive failed, but the request ended or is held: not told as given up', fields);
    return;
  }
  const report: GivenUpReport = {
    request: ctx.request,
    requestId: ctx.request.requestId,
    attempts: receivesOf(ctx.record),
    lastFailure: failureText(error),
    // An unexpected error that left the effect claimed may have come during or after a call; a
    // claim never given back (a copy that crashed mid-call) may have reached it too.
    mayHaveReached:
      error instanceof RetryLater
        ? error.mayHaveReached
        : state.effect.status !== 'free' || state.effectReached,
  };
  const asked = report.mayHaveReached ? undefined : answeredQuestion(ctx.request);
  if (asked) report.questionReopened = true;
  const reason = givenUpReason(report);
  deps.metrics.put(
    'DeadLettered',
    1,
    { Reason: GIVEN_UP_RULE },
    { requestId: report.requestId, messageId: ctx.record.messageId },
  );
  ctx.log.warn('gave up on the request: SQS moves it to the DLQ', {
    ...fields,
    result: 'dead-lettered',
    reason,
  });
  await Promise.all([
    audit(deps, ctx, reason, report.mayHaveReached).catch((auditError: unknown) =>
      ctx.log.error('could not audit that the request was given up', { error: auditError }),
    ),
    tell(deps, ctx, givenUpMessage(report), true).catch((postError: unknown) =>
      ctx.log.error('could not tell that the request was given up', { error: postError }),
    ),
    ...(asked ? [reopenQuestion(deps, ctx, asked)] : []),
  ]);
}

/**
 * An Approve click's copy given up without reaching the platform: nothing is on its way, so the
 * question it answered is open again (later clicks were told "approved, on its way", and nobody
 * could answer it until it expired). One that may have reached it keeps the answer.
 */
async function reopenQuestion(deps: RecordDeps, ctx: RecordContext, asked: string): Promise<void> {
  await unmarkAnswered(deps.table, asked, ctx.request.requestedBy.id).catch((error: unknown) =>
    ctx.log.error('could not open the answered question again', { askedRequestId: asked, error }),
  );
}

function audit(
  deps: RecordDeps,
  ctx: RecordContext,
  reason: string,
  mayHaveBeenDone: boolean,
): Promise<void> {
  const { request } = ctx;
  return writeAudit(deps.table, {
    requestId: request.requestId,
    at: currentDate(deps),
    action: request.action,
    target: actionTarget(request),
    effectKey: ctx.key,
    requester: requesterKey(request.requestedBy),
    rule: GIVEN_UP_RULE,
    reason,
    result: 'dead-lettered',
    dryRun: request.dryRun ?? false,
    messageId: ctx.record.messageId,
    // Stored, not left to the reason's words: the CI gate reads it (exit 5, src/cli/wait.ts).
    mayHaveBeenDone,
  });
}

/** The last failure in one line, without secrets, at most MAX_FAILURE_CHARS long. */
function failureText(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const line = scrubSecrets(raw).replace(/\s+/g, ' ').trim() || (error as Error)?.name || 'unknown error';
  return line.length > MAX_FAILURE_CHARS ? `${line.slice(0, MAX_FAILURE_CHARS - 1)}…` : line;
}
