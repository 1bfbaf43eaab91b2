/**
 * A copy of a request that has already ended (its effect completed, or its final written):
 * nothing is decided or called again. The end is told as it was, or, if it never was (no record
 * of it in the trail: the audit put failed after the mutation), told now, the channel too.
 */
import { endingRecorded, recordFinal } from '../state/audit.js';
import { startEndingHeld } from '../state/held-gates.js';
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
    const gate = await startEndingHeld(deps.table, ctx.request.requestId, lockExpiry(deps, ctx.timing));
    if (gate.state === 'cancelled') return endCancelled(deps, ctx, gate.cancel);
  }
  await recordFinal(deps.table, own, currentDate(deps), ownerOf(ctx));
  // Its own end, never told (no record of it in the trail): told now as at first, the channel too.
  if (sameRequest && !(await endingRecorded(deps.table, own.requestId, own.result)))
    return tellUntold(deps, ctx, own);
  const done = {
    result: stored.result as OutcomeResult,
    rule: stored.rule,
    reason,
    dryRun: false,
    replayOf: stored.requestId,
  };
  await finish(deps, ctx, done, 'replayed');
  return 'replayed';
}
