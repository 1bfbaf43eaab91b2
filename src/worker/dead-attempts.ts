/**
 * Copies that died on their last receive: the release tick's look. A copy whose invocation stops
 * there (a Lambda timeout, an out-of-memory kill, a crash) runs no catch block, so give-up.ts never
 * runs for it: SQS moves it to the DLQ and nobody was told (the requester heard "queued" last, the
 * CI gate waited out its timeout and exited 4), nor when a give-up had deferred to that copy. Each
 * last receive is marked before any work (src/state/last-receive.ts); past its deadline (its
 * invocation is surely over) the tick reads the request:
 * - another request owns its id (held, or ended: the worker refuses such a message, and clears its
 *   mark): the mark goes, nothing told;
 * - it was given up since the message was sent (told then): the mark goes, and the message is
 *   named on the give-up's record (`endsMessages`), as the worker names a copy of a request given
 *   up (ended-copy.ts): a CI gate waiting on it ends with the give-up;
 * - its end is stored (a final, a completed effect: its own change, or another request's) and no
 *   record says it was told (the copy died between the change and its telling): the tick that
 *   deletes the mark records and tells it as a copy of the request replays it (dead-end.ts), so a
 *   CI gate ends with it (0 for a change made);
 * - it ended otherwise (that end told), or is held (the tick sends it again): the mark goes;
 * - else the copy is taken off the live copies (src/state/live-copies.ts); with another still live,
 *   the mark goes and nothing is told (that copy ends the request, or is the last standing and
 *   tells, naming this message among those it ends);
 * - else the tick that deletes the mark (a conditional delete: one of two ticks at once) tells the
 *   give-up as the worker does (give-up.ts): the requester and the channel, the `dead-lettered`
 *   record (naming the copies that deferred to this one: their CI gates end with it) and the mark
 *   of when it was given up (a late copy of the request changes nothing: ended-copy.ts).
 * Claimed before telling: a tick dying between the two leaves it untold (once rather than twice).
 */

import { liveReplyUrl, parseActionRequest, requestOwner } from '../actions/request.js';
import type { Logger } from '../observability/logger.js';
import { sameOwner } from '../state/audit.js';
import { endsMessageToo } from '../state/given-up-end.js';
import { unmarkAnswered } from '../state/held-answer.js';
import {
  claimLastReceive,
  clearLastReceive,
  type LastReceiveMark,
  lastReceivePages,
} from '../state/last-receive.js';
import { clearGivenUp, takeOffLiveCopy } from '../state/live-copies.js';
import { type RequestState, readRequestState } from '../state/request-state.js';
import { idTakenRefusal } from './admit.js';
import { endUntold, storedEnd, tellStoredEnd } from './dead-end.js';
import { toDeadLetterQueueNow } from './give-up.js';
import { auditGivenUp, countGivenUp } from './given-up-record.js';
import { answeredQuestion } from './hold.js';
import { effectSubject, type Request } from './record.js';
import type { ReleaseDeps } from './release.js';
import { type GivenUpReport, givenUpMessage, givenUpReason } from './replies.js';
import { type StuckDeps, telling } from './stuck.js';

/**
 * The tick's deps: the actions queue too (the dead copy is made visible, so it reaches the DLQ as
 * told), and the worker's own (an end stored and untold is told as a copy replays it: dead-end.ts).
 */
type DeadAttemptDeps = StuckDeps & Partial<Pick<ReleaseDeps, 'sqs' | 'queueUrl' | 'recordDeps'>>;

/** The last failure told for a copy that died: nothing of it was heard after its last receive began. */
const DIED_FAILURE =
  'the attempt stopped (a timeout or a crash) on its last receive before it could record an end';

export interface DeadAttempts {
  /** Requests told given up here. */
  told: string[];
  /** Requests whose stored end the dead copy never told: told here (dead-end.ts). */
  endsTold: string[];
  /** Marks past their deadline not looked at for want of time: the next tick's. */
  left: number;
}

/**
 * Looks at every mark past its deadline at `now`, while `timeLeft` (of `remainingMs`, the
 * invocation's). One Query when none is there (the usual case). A mark that fails is logged and
 * left for the next tick.
 */
export async function tellDeadAttempts(
  deps: DeadAttemptDeps,
  now: Date,
  timeLeft: () => boolean,
  remainingMs: () => number = () => Number.POSITIVE_INFINITY,
): Promise<DeadAttempts> {
  const out: DeadAttempts = { told: [], endsTold: [], left: 0 };
  for await (const page of lastReceivePages(deps.table))
    for (const mark of page) {
      if (mark.deadlineMs > now.getTime()) continue;
      if (!timeLeft()) {
        out.left++;
        continue;
      }
      const log = deps.logger.child({
        requestId: mark.requestId,
        messageId: mark.messageId,
        effectKey: mark.effectKey,
      });
      try {
        const told = await settle(deps, mark, { now, remainingMs }, log);
        if (told === 'given-up') out.told.push(mark.requestId);
        if (told === 'end') out.endsTold.push(mark.requestId);
      } catch (error) {
        log.error('could not look at a copy that died on its last receive: the next tick does', { error });
      }
    }
  return out;
}

/** What this tick told: the give-up, the end the copy left untold, or nothing. */
async function settle(
  deps: DeadAttemptDeps,
  mark: LastReceiveMark,
  { now, remainingMs }: { now: Date; remainingMs: () => number },
  log: Logger,
): Promise<'given-up' | 'end' | 'none'> {
  const request = storedRequest(mark);
  if (!request.ok) {
    // Nothing can be told from it, nor ever will: looked at again each minute, it logged an error
    // every tick for its week of TTL. Removed once (one of two ticks at once), logged then.
    if (await claimLastReceive(deps.table, mark))
      log.error(
        'a copy that died on its last receive left a mark whose request does not parse: removed, nobody is told',
        {
          receives: mark.receives,
          error: request.error,
        },
      );
    return 'none';
  }
  return settleRequest(deps, mark, request.request, { now, remainingMs }, log);
}

/** The request the mark stored, as the worker read it (its id the mark's when the body had none). */
function storedRequest(mark: LastReceiveMark): { ok: true; request: Request } | { ok: false; error: string } {
  const parsed = parseActionRequest(mark.request);
  if (!parsed.ok) return parsed;
  return { ok: true, request: { ...parsed.request, requestId: parsed.request.requestId ?? mark.requestId } };
}

/** `settle` for a mark whose request parsed. */
async function settleRequest(
  deps: DeadAttemptDeps,
  mark: LastReceiveMark,
  request: Request,
  { now, remainingMs }: { now: Date; remainingMs: () => number },
  log: Logger,
): Promise<'given-up' | 'end' | 'none'> {
  const nowMs = now.getTime();
  const state = await readRequestState(deps.table, effectSubject(request, mark.effectKey), nowMs);
  const fields = { receives: mark.receives, deadline: new Date(mark.deadlineMs).toISOString() };
  if (await endedForIt(deps, mark, { request, state, log }, fields)) return 'none';
  // An end stored (a final, a completed change: its own or another request's) and never told: the
  // copy died before. No copy comes back to replay it: told here as one would (dead-end.ts), with
  // the worker's deps (its entry hands them; a tick built without them, in a test, leaves it).
  const end = storedEnd(state);
  if (end && deps.recordDeps && (await endUntold(deps.table, mark.requestId, end))) {
    if (!(await claimLastReceive(deps.table, mark))) return 'none';
    const look = { request, state, now, remainingMs, log };
    return (await tellStoredEnd(deps.recordDeps, mark, end, look)) ? 'end' : 'none';
  }
  if (end || state.held) {
    await clearLastReceive(deps.table, mark.requestId, mark.messageId);
    log.info('last receive ended the request, or it ended otherwise: nothing to tell', fields);
    return 'none';
  }
  // A call may have made the change: a claim held or never given back (a copy that died mid-call).
  const reached = state.effect.status !== 'free' || state.effectReached;
  // A give-up that deferred to this copy keeps its mark (its failure is the one told).
  const died = { failure: DIED_FAILURE, mayHaveReached: reached };
  const left = await takeOffLiveCopy(deps.table, mark.requestId, mark.messageId, nowMs, died, true);
  if (left.others.length > 0) {
    await clearLastReceive(deps.table, mark.requestId, mark.messageId);
    log.warn('last receive died; the give-up defers to the live copy that ends the request', {
      ...fields,
      liveCopies: left.others,
    });
    return 'none';
  }
  // Of two ticks at once, the one that deletes the mark tells.
  if (!(await claimLastReceive(deps.table, mark))) return 'none';
  const report: GivenUpReport = {
    request,
    requestId: mark.requestId,
    attempts: mark.receives,
    lastFailure: left.givenUp?.failure ?? DIED_FAILURE,
    mayHaveReached: reached || left.givenUp?.mayHaveReached === true,
  };
  const asked = report.mayHaveReached ? undefined : answeredQuestion(request);
  if (asked) report.questionReopened = true;
  const reason = givenUpReason(report);
  countGivenUp(deps.metrics, request, mark.messageId);
  log.warn('gave up on the request: its last attempt died, and SQS moved it to the DLQ', {
    ...fields,
    result: 'dead-lettered',
    reason,
    ...(left.givenUp && !left.givenUp.by.startsWith(`${mark.messageId}@`)
      ? { givenUpBy: left.givenUp.by }
      : {}),
  });
  const ctx = { request, key: mark.effectKey, log, record: { messageId: mark.messageId } };
  await Promise.all([
    // The dead invocation held the message: SQS would move it to the DLQ only once its visibility
    // ends, minutes after "it waits in the dead-letter queue" was told. Visible at once instead.
    ...(deps.sqs && deps.queueUrl && mark.receiptHandle
      ? [toDeadLetterQueueNow({ sqs: deps.sqs, queueUrl: deps.queueUrl }, mark.receiptHandle, log)]
      : []),
    auditGivenUp(
      // When it was told: a copy sent until then is one of the request that ended (ended-copy.ts).
      { table: deps.table, clock: () => Math.max(nowMs, deps.clock?.() ?? nowMs) },
      ctx,
      reason,
      report.mayHaveReached,
      left.gaveUp,
    ).catch((error: unknown) => log.error('could not audit that the request was given up', { error })),
    tellPeople(deps, request, now, givenUpMessage(report), log),
    ...(asked
      ? [
          unmarkAnswered(deps.table, asked, request.requestedBy.id).catch((error: unknown) =>
            log.error('could not open the answered question again', { askedRequestId: asked, error }),
          ),
        ]
      : []),
  ]);
  // Settled: a later message under the id is not one deferred to.
  if (left.givenUp)
    await clearGivenUp(deps.table, mark.requestId, left.givenUp).catch((error: unknown) =>
      log.warn('could not take the give-up mark off the live copies', { error }),
    );
  return 'given-up';
}

/**
 * True when the copy is not one the tick tells (its mark deleted): another request owns the id, or
 * its request was given up since the message was sent (the message named on that give-up's record).
 */
async function endedForIt(
  deps: DeadAttemptDeps,
  mark: LastReceiveMark,
  { request, state, log }: { request: Request; state: RequestState; log: Logger },
  fields: Record<string, unknown>,
): Promise<boolean> {
  // Another request owns the id (held, or ended): the worker refuses such a message (and clears its
  // mark), one that died first would have been refused. Nothing of that request is its to tell.
  const owner = requestOwner(request, mark.effectKey);
  const taken = idTakenRefusal(owner, state.heldOwner ?? state.final?.owner, mark.requestId);
  if (taken) {
    await clearLastReceive(deps.table, mark.requestId, mark.messageId);
    log.warn('last receive died under an id another request owns: nothing to tell', {
      ...fields,
      rule: taken.rule,
    });
    return true;
  }
  // A give-up recorded since the message was sent (one it is a copy of: ended-copy.ts), or since
  // the mark (its own, told then, or another copy's at the same time: the worker's one clock) ended
  // it; a give-up of another owner's request under the id is not this one's (ended-copy.ts).
  const since = Math.min(mark.sentAtMs ?? Number.POSITIVE_INFINITY, mark.markedAtMs);
  const { givenUp } = state;
  if (givenUp && givenUp.atMs >= since && sameOwner(givenUp.owner, owner)) {
    // A copy of the request that ended so: named on the give-up's record, as the worker names a
    // copy received after it (ended-copy.ts), so that a CI gate waiting on this message ends with it.
    await endsMessageToo(deps.table, mark.requestId, givenUp, mark.messageId);
    await clearLastReceive(deps.table, mark.requestId, mark.messageId);
    log.info('given up since the message was sent (told then): named among the messages it ends', fields);
    return true;
  }
  return false;
}

/** The requester (while its reply URL lives) and the channel, as the worker tells a give-up. */
async function tellPeople(
  deps: StuckDeps,
  request: Request,
  now: Date,
  message: ReturnType<typeof givenUpMessage>,
  log: Logger,
): Promise<void> {
  try {
    const how = telling(deps, request.requestId);
    // Alive when posted: the tick's start may be a while back.
    const replyUrl = liveReplyUrl(request, new Date(Math.max(now.getTime(), deps.clock?.() ?? 0)));
    const channelUrl = await how.channelUrl?.();
    const targets = [...(replyUrl ? [replyUrl] : []), ...(channelUrl ? [channelUrl] : [])];
    await how.tell?.(targets, message);
  } catch (error) {
    log.error('could not tell that the request was given up', { error });
  }
}
