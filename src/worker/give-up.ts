/**
 * The last receive. A record that fails on every receive is moved to the DLQ by SQS after the
 * queue's `maxReceiveCount` (src/queue/redrive.ts); the person who asked had been told "queued"
 * and would hear nothing more, and the audit trail would have no ending. So when the request's
 * own attempt fails on that receive, the worker writes a `dead-lettered` audit record (rule
 * `retries-exhausted`, with the last failure) and tells the requester and the channel, where its
 * outcomes are told (finish.ts). The record still fails: it must reach the DLQ, never be
 * dropped. Telling that fails is logged, never thrown.
 *
 * One request can be on the queue as several messages (a producer retrying SendMessage). A copy
 * that fails before its last receive registers as live until its back-off ends, plus a margin
 * (src/state/live-copies.ts); on its last receive a copy takes itself off, and when another copy is
 * still live it tells nothing and writes no `dead-lettered` record (the CI gate keeps waiting): that
 * copy comes back and ends the request (done, stale, or its own give-up, told then). Told here too,
 * the request had two different ends. That copy may itself end on its last receive waiting for
 * another copy's claim (which tells nothing of its own): the last copy standing tells the give-up
 * (onLastReceive). A give-up writes no final, so a later message under the id
 * (a CI retry, `autopilot dlq redrive`) is decided afresh. A copy never received (or never failed)
 * before the give-up is not registered: sent before the give-up was recorded, it is a copy of the
 * request that ended, and changes and tells nothing (src/worker/ended-copy.ts).
 */
import type { Logger } from '../observability/logger.js';
import { isLastReceive, QUEUE_VISIBILITY_SECONDS, receivesOf } from '../queue/redrive.js';
import { unmarkAnswered } from '../state/held-answer.js';
import {
  clearGivenUp,
  type GivenUpMark,
  type LiveCopiesLeft,
  registerLiveCopy,
  takeOffLiveCopy,
} from '../state/live-copies.js';
import type { RequestState } from '../state/request-state.js';
import { readRequestState } from '../state/request-state.js';
import { scrubSecrets } from '../util/secret-scrub.js';
import { setVisibility } from './defer.js';
import { RetryLater } from './errors.js';
import { auditGivenUp, countGivenUp } from './given-up-record.js';
import { answeredQuestion } from './hold.js';
import { clearOwnLastReceive } from './last-receive.js';
import { type RecordContext, type RecordDeps, type RecordResult, stateSubject } from './record.js';
import { type GivenUpReport, givenUpMessage, givenUpReason } from './replies.js';
import { tell } from './tell.js';

/** A failure is told, not dumped: an unexpected error's message can be long. */
const MAX_FAILURE_CHARS = 500;
/**
 * How long past its back-off a copy still counts as live. A copy comes back when the event source
 * receives it, not when its visibility ends: behind a backlog (a low maxConcurrency, a throttled
 * event source) that is minutes later, then it runs up to the worker's timeout, and a run that dies
 * (a timeout, a crash) comes back only after the queue's visibility timeout. Counted out too soon,
 * the other copy told "gave up" and the late one then told the real end (the margin was 2 minutes).
 * Counted too long costs little: the last copy standing tells, and a copy that ended without taking
 * itself off ended the request (its final or hold is read before any give-up is told) or died on
 * its last receive (then nobody tells, as for one copy alone: the DLQ alarm sees it). So twice the
 * queue's visibility timeout: one dead run's return, and as long again behind a backlog.
 */
const LIVE_MARGIN_MS = 2 * QUEUE_VISIBILITY_SECONDS * 1000;

/**
 * Runs the request's own attempt; if it fails before the record's last receive, registers the copy
 * as live until it comes back; if it fails on the last receive, tells that the request was given up
 * (unless another copy is live), then fails the record all the same (the handler reports it and
 * SQS moves it to the DLQ). A failure because another copy handles the request is not one (unless
 * a give-up deferred to this copy and no other is live: onLastReceive).
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
    if (!isLastReceive(ctx.record, deps.maxReceiveCount)) await registerLive(deps, ctx);
    else await onLastReceive(deps, ctx, error, otherCopy);
    throw error;
  }
}

/** A last failure as told: its text, and whether it may have reached the platform (unknown: the state says). */
interface LastFailure {
  text: string;
  mayHaveReached?: boolean;
}

/**
 * The last copy standing tells. This copy never comes back: it takes itself off the live copies,
 * and when it gives up it marks that on the same item in the same update. With another copy still
 * live it tells nothing (that copy ends the request, or is the last standing and tells). Else it
 * tells the give-up: its own, or, failing only because another copy of the request held what it
 * waited for (`otherCopy`), the give-up marked by a copy that deferred to it. An `otherCopy` with
 * no mark stays silent: the copy holding the claim or lease it waited for ends the request and
 * tells. The update is atomic and DynamoDB applies them one after the other, so of two copies
 * ending together exactly one sees no other live (and sees the other's mark): told once.
 */
async function onLastReceive(
  deps: RecordDeps,
  ctx: RecordContext,
  error: unknown,
  otherCopy: boolean,
): Promise<void> {
  // A RetryLater says whether its call may have reached the platform; another error leaves it to the state.
  const own: LastFailure | undefined = otherCopy
    ? undefined
    : {
        text: failureText(error),
        ...(error instanceof RetryLater ? { mayHaveReached: error.mayHaveReached } : {}),
      };
  const mark = own && { failure: own.text, mayHaveReached: own.mayHaveReached === true };
  const left = await otherLiveCopies(deps, ctx, mark);
  const lastStanding = left.others.length === 0;
  const deferredTo = lastStanding && otherCopy ? left.givenUp : undefined;
  const standing =
    'last receive failed waiting for another copy, which gave up: the last copy standing tells';
  if (deferredTo) ctx.log.warn(standing, { givenUpBy: deferredTo.by });
  // The give-up deferred to this copy is told with its failure; a call it did not know reached is left to the state.
  const told =
    own ??
    (deferredTo && {
      text: deferredTo.failure,
      ...(deferredTo.mayHaveReached ? { mayHaveReached: true } : {}),
    });
  // Waiting for another request's claim, or a copy of this one: that one ends the request.
  if (!told) return clearOwnLastReceive(deps, ctx);
  await tellGivenUp(deps, ctx, told, left);
  await toDeadLetterQueueNow(deps, ctx.record.receiptHandle, ctx.log);
  // Settled by the last copy standing: a later message under the id is not one deferred to.
  if (lastStanding && left.givenUp)
    await clearGivenUp(deps.table, ctx.request.requestId, left.givenUp).catch((clearError: unknown) =>
      ctx.log.warn('could not take the give-up mark off the live copies', { error: clearError }),
    );
}

/**
 * Visible at once: SQS moves it to the DLQ on the event source's next receive, where `dlq list` and
 * the DLQ alarm see it, rather than once the queue's visibility timeout ends (6 minutes deployed).
 * A copy waiting for another (`otherCopy`) keeps its wait: that one ends the request. The release
 * tick makes a copy that died visible so too (dead-attempts.ts).
 */
export async function toDeadLetterQueueNow(
  { sqs, queueUrl }: Pick<RecordDeps, 'sqs' | 'queueUrl'>,
  receiptHandle: string,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  await setVisibility(sqs, queueUrl, receiptHandle, 0).catch((error: unknown) =>
    log.warn('could not make the message visible: it reaches the DLQ once its visibility ends', { error }),
  );
}

/** This copy comes back once its back-off (or the queue's visibility timeout) ends: live until then. */
async function registerLive(deps: RecordDeps, ctx: RecordContext): Promise<void> {
  const backOffMs = (ctx.putBackSeconds ?? QUEUE_VISIBILITY_SECONDS) * 1000;
  const untilMs = deps.clock() + backOffMs + LIVE_MARGIN_MS;
  await registerLiveCopy(deps.table, ctx.request.requestId, ctx.record.messageId, untilMs).catch(
    (error: unknown) =>
      ctx.log.warn('could not register this copy as live: a copy giving up meanwhile tells it', { error }),
  );
}

/**
 * Takes this copy off the live ones (marking its give-up, `mark`); the others still live and the
 * give-up mark. None known when that fails: a copy giving up tells, one waiting for another does not.
 */
async function otherLiveCopies(
  deps: RecordDeps,
  ctx: RecordContext,
  mark: Omit<GivenUpMark, 'by'> | undefined,
): Promise<LiveCopiesLeft> {
  const { request, record } = ctx;
  return takeOffLiveCopy(deps.table, request.requestId, record.messageId, deps.clock(), mark).catch(
    (error: unknown) => {
      // Waiting for another copy, this one cannot know whether a give-up deferred to it: an error.
      if (mark) ctx.log.warn('could not read the live copies of the request: told as given up', { error });
      else
        ctx.log.error('could not read the live copies: a give-up deferred to this copy is not told', {
          error,
        });
      return { others: [] };
    },
  );
}

async function tellGivenUp(
  deps: RecordDeps,
  ctx: RecordContext,
  failure: LastFailure,
  left: LiveCopiesLeft,
): Promise<void> {
  const liveCopies = left.others;
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
  // Another copy comes back and ends the request: its end is the one told.
  if (liveCopies.length > 0) {
    ctx.log.warn('last receive failed; the give-up defers to the live copy that ends the request', {
      ...fields,
      liveCopies,
      lastFailure: failure.text,
    });
    return clearOwnLastReceive(deps, ctx);
  }
  const report: GivenUpReport = {
    request: ctx.request,
    requestId: ctx.request.requestId,
    attempts: receivesOf(ctx.record),
    lastFailure: failure.text,
    // An unexpected error that left the effect claimed may have come during or after a call; a
    // claim never given back (a copy that crashed mid-call) may have reached it too.
    mayHaveReached: failure.mayHaveReached ?? (state.effect.status !== 'free' || state.effectReached),
  };
  const asked = report.mayHaveReached ? undefined : answeredQuestion(ctx.request);
  if (asked) report.questionReopened = true;
  const reason = givenUpReason(report);
  countGivenUp(deps.metrics, ctx.request, ctx.record.messageId);
  ctx.log.warn('gave up on the request: SQS moves it to the DLQ', {
    ...fields,
    result: 'dead-lettered',
    reason,
  });
  await Promise.all([
    auditGivenUp(deps, ctx, reason, report.mayHaveReached, left.gaveUp).catch((auditError: unknown) =>
      ctx.log.error('could not audit that the request was given up', { error: auditError }),
    ),
    tell(deps, ctx, givenUpMessage(report), true).catch((postError: unknown) =>
      ctx.log.error('could not tell that the request was given up', { error: postError }),
    ),
    ...(asked ? [reopenQuestion(deps, ctx, asked)] : []),
  ]);
  // Told: the tick has nothing to tell for this receive. Left, it would read the given-up item to
  // know, and that item's put may have failed (logged, not thrown): it would tell a second give-up.
  await clearOwnLastReceive(deps, ctx);
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

/** The last failure in one line, without secrets, at most MAX_FAILURE_CHARS long. */
function failureText(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const line = scrubSecrets(raw).replace(/\s+/g, ' ').trim() || (error as Error)?.name || 'unknown error';
  return line.length > MAX_FAILURE_CHARS ? `${line.slice(0, MAX_FAILURE_CHARS - 1)}…` : line;
}
