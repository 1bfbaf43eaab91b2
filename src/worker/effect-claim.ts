/**
 * The effect claim a copy takes before it calls the Console API (src/worker/process-record.ts
 * `mutate`): at most one call per change at a time, whichever request or copy asks for it.
 */
import { claimEffect, ownerRequestId } from '../state/effects.js';
import { putBack } from './defer.js';
import { RetryLater } from './errors.js';
import { lockExpiry, type RecordContext, type RecordDeps } from './record.js';
import { replay } from './replay-end.js';

/**
 * Claims the effect for `owner` (the claim, saying whether an earlier call may have reached the platform). An effect completed meanwhile is
 * replayed; one another copy or request is executing now is retried once that lock would have
 * expired at the latest (by then it has completed, and we replay, or crashed, and we claim).
 */
export async function claim(deps: RecordDeps, ctx: RecordContext, owner: string) {
  const lockExpiresAt = lockExpiry(deps, ctx.timing);
  const claimed = await claimEffect(deps.table, ctx.key, { owner, lockExpiresAt, nowMs: deps.clock() });
  // A call under the former key (before the digest keys) may have reached the platform: as if here.
  if (claimed.claimed)
    return {
      ...claimed,
      earlierMayHaveReached: claimed.earlierMayHaveReached || ctx.formerClaimReached === true,
    };
  if (claimed.state.status === 'completed') return replay(deps, ctx, claimed.state.outcome);
  const waitSeconds = Math.ceil((claimed.state.lockExpiresAt - deps.clock()) / 1000) + 1;
  await putBack(deps, ctx, Math.max(1, waitSeconds));
  // The claim is per change, not per request: another request's claim is no copy of this one, and
  // its holder never tells this request's people. Waiting on it is this request's own failure, so
  // its last receive tells the give-up (as `otherCopy` nobody told: not that request, not this one).
  // That request is calling for this very change now, so the change may be made: its give-up says
  // "may have been done" (the CI gate's 5), never "could not" (a 3 read as not done).
  if (ownerRequestId(claimed.state.owner) !== ctx.request.requestId)
    throw new RetryLater(`effect ${ctx.key} is being executed by another request`, {
      mayHaveReached: true,
    });
  throw new RetryLater(`effect ${ctx.key} is being executed by another copy`, { otherCopy: true });
}
