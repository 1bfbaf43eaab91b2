/**
 * The gates a copy passes, after its decision and its effect claim, before it calls the API for a
 * held request (and for the held question an Approve click's copy answers): the held items say it
 * is executing (a cancel then is refused), unless the request stopped since the copy read it: a
 * person cancelled it, another copy or pass ended it, or one is recording its end right now.
 */
import { readFinal } from '../state/audit.js';
import { clearStaleEnding, startExecutingHeld, stopExecutingHeld } from '../state/held-gates.js';
import { comeBackAfter } from './defer.js';
import type { RetryLaterOptions } from './errors.js';
import { endCancelled } from './finish.js';
import type { RecordContext, RecordDeps, RecordResult } from './record.js';
import { replay } from './replay-end.js';

/** How the request ends instead of executing (a function, run once the effect claim went back). */
type Stop = () => Promise<RecordResult>;

/**
 * A held request stopped since our first read: cancelled first (the race is won on its held item),
 * or ended by another copy. `mayHaveReached`: an earlier attempt of this request may have made the
 * change (told so if the copy gives up waiting on another request's hold: waitFailure).
 */
export async function stoppedSinceRead(
  deps: RecordDeps,
  ctx: RecordContext,
  owner: string,
  heldIds: string[],
  mayHaveReached: boolean,
): Promise<Stop | undefined> {
  for (const [i, heldId] of heldIds.entries()) {
    const stop = await stoppedOn(deps, ctx, owner, heldId, mayHaveReached);
    if (!stop) continue;
    // Nothing executes: the marks already made are taken back.
    for (const marked of heldIds.slice(0, i)) await stopExecutingHeld(deps.table, marked, owner);
    return stop;
  }
  return undefined;
}

/** One held item's gate: go on (marked executing), or how the request ends instead. */
async function stoppedOn(
  deps: RecordDeps,
  ctx: RecordContext,
  owner: string,
  heldId: string,
  mayHaveReached: boolean,
): Promise<Stop | undefined> {
  const failure = waitFailure(ctx, heldId, mayHaveReached);
  const what = heldId === ctx.request.requestId ? `request ${heldId}` : `question ${heldId}`;
  for (let tries = 0; ; tries++) {
    const gate = await startExecutingHeld(deps.table, heldId, owner, heldId === ctx.request.requestId);
    if (gate.state === 'cancelled') return () => endCancelled(deps, ctx, gate.cancel);
    if (gate.state === 'go') return undefined;
    // No longer held: it ended meanwhile (a copy of this request, or the question this answers).
    // Or an ending lease is on it: its writer (a person's answer, the tick's expiry, another copy's
    // denial) may have written the request's final and died before removing the held record. That
    // final is the request's end, told here if it is untold (replay), never contradicted by a change.
    const final = await endOf(deps, ctx, heldId);
    if (final) return () => replay(deps, ctx, final);
    if (gate.state === 'gone') return undefined;
    // A person denied it after this copy decided: it decides again, now, and finds the veto.
    if (gate.state === 'denied') return () => deniedSinceDecided(deps, ctx, what, failure);
    // Marks came and went under three tries: nothing marked, nothing called; it looks again shortly.
    if (gate.state === 'contended') {
      const why = `${what} changed under its executing gate`;
      return () => comeBackAfter(deps, ctx, deps.clock(), why, failure);
    }
    // No final under the lease. A live one: its writer is recording the end now; we look again
    // once it has run out. One run out: its writer died before any final; it is taken off (only
    // that same lease) and the gate tried again, once.
    if (gate.untilMs >= deps.clock() || tries > 0)
      return () => comeBackAfter(deps, ctx, gate.untilMs, `${what} is being ended by another pass`, failure);
    await clearStaleEnding(deps.table, heldId, gate.untilMs, deps.clock());
  }
}

/** The request's own final, or (for an Approve click's copy) the final of the question it answers. */
async function endOf(deps: RecordDeps, ctx: RecordContext, heldId: string) {
  return (
    (await readFinal(deps.table, ctx.request.requestId)) ??
    (heldId === ctx.request.requestId ? undefined : await readFinal(deps.table, heldId))
  );
}

/**
 * How a copy waiting at `heldId`'s gate fails meanwhile (an ending lease, marks contended). On the
 * request's own held item, whoever holds it ends this request and tells its people, and while it
 * is held its give-up tells nothing anyway (give-up.ts): `otherCopy`. The question an Approve
 * click's copy answers is another request's: whoever holds it (the question's own copy, the tick's
 * expiry) ends and tells the question, never the clicker, so waiting on it is this copy's own
 * failure and its last receive tells the clicker it gave up (it ended silently: nobody told them).
 */
function waitFailure(ctx: RecordContext, heldId: string, mayHaveReached: boolean): RetryLaterOptions {
  if (heldId === ctx.request.requestId) return { otherCopy: true };
  return { mayHaveReached: mayHaveReached || ctx.reached === true };
}

/** A person's Deny marked the request after this copy decided: it comes back at once and decides again. */
function deniedSinceDecided(
  deps: RecordDeps,
  ctx: RecordContext,
  what: string,
  failure: RetryLaterOptions,
): Promise<never> {
  return comeBackAfter(
    deps,
    ctx,
    deps.clock(),
    `${what} was denied by a person since it was decided`,
    failure,
  );
}
