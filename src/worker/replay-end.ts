/**
 * A copy of a request that has already ended (its effect completed, or its final written):
 * nothing is decided or called again. The end is told as it was, or, if it never was (no record
 * of it in the trail: the audit put failed after the mutation), told now, the channel too.
 */
import { endingRecorded, type FinalOutcome, readFinal, recordFinal } from '../state/audit.js';
import { startEndingHeld } from '../state/held-gates.js';
import { comeBackAfter } from './defer.js';
import { endCancelled, finish, type StoredEnd, tellUntold } from './finish.js';
import {
  currentDate,
  lockExpiry,
  ownerOf,
  type RecordContext,
  type RecordDeps,
  type RecordResult,
} from './record.js';
import type { OutcomeResult } from './replies.js';

export async function replay(deps: RecordDeps, ctx: RecordContext, stored: StoredEnd): Promise<RecordResult> {
  const sameRequest = stored.requestId === ctx.request.requestId;
  const reason = sameRequest ? stored.reason : `${stored.reason} (request ${stored.requestId}, ${stored.at})`;
  // Its own completed effect whose final was not written (a failed put, a crash between the two),
  // or another request's end told as its own: written now (put-if-absent), so its id stays its own.
  const own = sameRequest ? stored : { ...stored, reason, requestId: ctx.request.requestId };
  // Another request's change, told as this held request's end: like every other end of a held
  // request (finish.ts), refused once a person cancelled it (before our read, or since), and a
  // cancel after this gate is refused (src/state/held-gates.ts): the person told "cancelled" is
  // never contradicted by "Done … by request X". Its own completed change is no such end: a change
  // made cannot be cancelled (its executing mark refused any cancel since).
  if (ctx.held && !sameRequest) {
    const by = { effect: ctx.key, nowMs: deps.clock() };
    const gate = await startEndingHeld(deps.table, ctx.request.requestId, lockExpiry(deps, ctx.timing), by);
    if (gate.state === 'cancelled') return endCancelled(deps, ctx, gate.cancel);
    // A copy of this request is executing it (another request's claim is over): its outcome follows.
    if (gate.state === 'executing')
      return comeBackAfter(
        deps,
        ctx,
        gate.untilMs,
        `request ${ctx.request.requestId} is being executed by another copy`,
      );
  }
  const first = await recordFinal(deps.table, own, currentDate(deps), ownerOf(ctx));
  // The request has an end of its own already, written since our read (a person's answer whose
  // pass died before telling it, say): that is its end, told once if it is untold, never replaced
  // by a replay of another request's change (whose record would count as the end told, and whose
  // ending would remove the held record that brings the request back to be told). The same replay
  // written by another copy of this request is no such end. A read on this failure only.
  if (!first && !sameRequest) {
    const found = await readFinal(deps.table, ctx.request.requestId);
    if (found && !sameEnd(found, own)) return replay(deps, ctx, found);
  }
  // Its own end, never told (no record of it in the trail): told now as at first, the channel too.
  if (sameRequest && !(await endingRecorded(deps.table, own.requestId, own.result)))
    return tellUntold(deps, ctx, own);
  const done = {
    result: stored.result as OutcomeResult,
    rule: stored.rule,
    reason,
    dryRun: false,
    replayOf: stored.requestId,
    ...(stored.mayHaveBeenDone === undefined ? {} : { mayHaveBeenDone: stored.mayHaveBeenDone }),
  };
  await finish(deps, ctx, done, 'replayed');
  return 'replayed';
}

const sameEnd = (a: FinalOutcome, b: StoredEnd) =>
  a.result === b.result && a.rule === b.rule && a.reason === b.reason;
