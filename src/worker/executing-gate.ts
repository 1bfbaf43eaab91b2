/**
 * The gates a copy passes, after its decision and its effect claim, before it calls the API for a
 * held request (and for the held question an Approve click's copy answers): the held items say it
 * is executing (a cancel then is refused), unless the request stopped since the copy read it: a
 * person cancelled it, another copy or pass ended it, or one is recording its end right now.
 */
import { readFinal } from '../state/audit.js';
import { clearStaleEnding, startExecutingHeld, stopExecutingHeld } from '../state/held-gates.js';
import { comeBackAfter } from './defer.js';
import { endCancelled } from './finish.js';
import type { RecordContext, RecordDeps, RecordResult } from './record.js';
import { replay } from './replay-end.js';

/** How the request ends instead of executing (a function, run once the effect claim went back). */
type Stop = () => Promise<RecordResult>;

/** A held request stopped since our first read: cancelled first (the race is won on its held item), or ended by another copy. */
export async function stoppedSinceRead(
  deps: RecordDeps,
  ctx: RecordContext,
  owner: string,
  heldIds: string[],
): Promise<Stop | undefined> {
  for (const [i, heldId] of heldIds.entries()) {
    const stop = await stoppedOn(deps, ctx, owner, heldId);
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
): Promise<Stop | undefined> {
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
    if (gate.state === 'denied') return () => deniedSinceDecided(deps, ctx);
    // Marks came and went under three tries: nothing marked, nothing called; it looks again shortly.
    if (gate.state === 'contended') {
      const why = `request ${ctx.request.requestId} changed under its executing gate`;
      return () => comeBackAfter(deps, ctx, deps.clock(), why);
    }
    // No final under the lease. A live one: its writer is recording the end now; we look again
    // once it has run out. One run out: its writer died before any final; it is taken off (only
    // that same lease) and the gate tried again, once.
    if (gate.untilMs >= deps.clock() || tries > 0) return () => whileEnding(deps, ctx, gate.untilMs);
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

/** Another pass is recording the request's end: this copy comes back once its lease has run out. */
function whileEnding(deps: RecordDeps, ctx: RecordContext, untilMs: number): Promise<never> {
  return comeBackAfter(deps, ctx, untilMs, `request ${ctx.request.requestId} is being ended by another pass`);
}

/** A person's Deny marked the request after this copy decided: it comes back at once and decides again. */
function deniedSinceDecided(deps: RecordDeps, ctx: RecordContext): Promise<never> {
  return comeBackAfter(
    deps,
    ctx,
    deps.clock(),
    `request ${ctx.request.requestId} was denied by a person since it was decided`,
  );
}
