/**
 * Telling how a record's request ended: one metric, one log line, the final outcome (for results
 * that end a request, so its copies replay it), the replies to the requester and the notifications
 * channel, and the audit record (tell-end.ts). What each kind of ending gets is one table.
 */
import { isDryRun } from '../policy/decide.js';
import { type FinalOutcome, readFinal, recordFinal, type TellingClaim } from '../state/audit.js';
import type { StoredOutcome } from '../state/effects.js';
import type { CancelMark } from '../state/held.js';
import { startEndingHeld } from '../state/held-gates.js';
import {
  claimTelling,
  finalTellingUntil,
  releaseFinalTelling,
  releaseTelling,
  tellingClaimUntil,
  toldUnrecorded,
} from '../state/telling.js';
import { cancelReason } from './cancel.js';
import { comeBackAfter } from './defer.js';
import {
  currentDate,
  lockExpiry,
  ownerOf,
  type RecordContext,
  type RecordDeps,
  type RecordResult,
} from './record.js';
import { FINAL_RESULTS, mayHaveBeenDone, type OutcomeResult } from './replies.js';
import { type Finished, type HeldTelling, ownerFor, type TellingRow, tellEnd } from './tell-end.js';

export { writeAuditFor } from './tell-end.js';
export type { Finished, HeldTelling };

/**
 * How an outcome came about, which decides how it is told:
 * - `decided`: the policy's answer (deny, a dry run, a denial for want of a channel);
 * - `deferred`: the deferral is audited before the request is held; people hear it once per rule;
 * - `asked`: the question itself went to the channel, so only the requester is told;
 * - `executed`: the Console API answered; its outcome is stored already (effect or final);
 * - `replayed`: a copy of an ended request or effect; the channel heard it the first time.
 */
export type Ending = 'decided' | 'deferred' | 'asked' | 'executed' | 'replayed';

const TELLING: Record<Ending, TellingRow> = {
  decided: { audit: true, storeFinal: true, channel: true, once: false },
  deferred: { audit: false, storeFinal: true, channel: true, once: true },
  asked: { audit: true, storeFinal: true, channel: false, once: false },
  executed: { audit: true, storeFinal: false, channel: true, once: false },
  replayed: { audit: true, storeFinal: false, channel: false, once: false, auditAs: 'replayed' },
};

/**
 * The metric, the log line, the audit record, the final outcome and the replies of one ending.
 * `claimed`: the telling claim this copy holds already (tellUntold, or with the final it wrote:
 * `recordFinalClaimed`).
 */
export async function finish(
  deps: RecordDeps,
  ctx: RecordContext,
  decided: Finished,
  ending: Ending,
  claimed?: HeldTelling,
): Promise<RecordResult> {
  // A denial after an attempt that may have reached the platform is told as such, everywhere.
  const done = ctx.reached ? mayHaveBeenDone(decided) : decided;
  const telling = TELLING[ending];
  const result = telling.auditAs ?? done.result;
  const { request } = ctx;
  // A stored end is told under a claim, the first time too: a copy of this request arriving before
  // this one's audit record (written after the posts) finds the end untold and tells it
  // (tellUntold) unless the claim is held.
  // The copy that claims first tells; one that fails before its audit record gives it back (retried, it tells).
  const stored = telling.audit && !telling.auditAs && FINAL_RESULTS.has(done.result);
  let held = claimed;
  // The final is written first, and alone: it decides which end is the request's when another
  // raced this one (a person's cancel, the tick's end of a stuck wait, another copy's decision).
  // The end that lost is neither audited nor told: its winner tells its own, and two
  // contradicting ends ("denied", "cancelled") must never both reach people. Its telling is
  // claimed in the same put.
  if (telling.storeFinal && FINAL_RESULTS.has(done.result)) {
    const stopped = await endingRefused(deps, ctx, done);
    if (stopped) return stopped;
    const final = { ...pick(done), requestId: request.requestId, at: currentDate(deps).toISOString() };
    const written = await recordFinalClaimed(deps, ctx, final, stored && !held);
    if (!written) return endedOtherwise(deps, ctx, done);
    if (written !== true) held = written;
  }
  if (stored && !held) {
    const owner = ownerFor(ctx);
    if (!(await claim(deps, ctx, owner))) return toldByAnother(deps, ctx);
    held = { release: () => releaseTelling(deps.table, request.requestId, owner) };
  }
  // Once the audit record is written, after the posts, the end counts as told (a copy finding it
  // replays the end without the channel: endingRecorded), so from there the claim is kept; given
  // back before it, a retry tells (again, if the posts were made: twice rather than never).
  const progress = { audited: false };
  try {
    return await tellEnd(deps, ctx, done, telling, result, progress, held);
  } catch (error) {
    // A give-back failing too (the table throttled again) is a warning only: the record fails with
    // the telling's own error (the cause), and the claim runs out by its lease (a later copy tells).
    if (held && !progress.audited)
      await held.release().catch((failed: unknown) => ctx.log.warn(GIVE_BACK_FAILED, { error: failed }));
    throw error;
  }
}

/**
 * A held request's end is refused once a person cancelled it, even after our read: the two exclude
 * each other on its held item (held-gates.ts), so "cancelled" is never told wrongly. And while
 * another copy's approval of it is being made (its call may be in flight): the end is that copy's
 * outcome; this copy comes back then (and replays it, or ends it if that copy died).
 */
async function endingRefused(
  deps: RecordDeps,
  ctx: RecordContext,
  done: Finished,
): Promise<RecordResult | undefined> {
  if (!ctx.held || done.result === 'cancelled') return undefined;
  const { requestId } = ctx.request;
  const by = { effect: ctx.key, nowMs: deps.clock() };
  const gate = await startEndingHeld(deps.table, requestId, lockExpiry(deps, ctx.timing), by);
  if (gate.state === 'cancelled') return endCancelled(deps, ctx, gate.cancel);
  if (gate.state === 'executing')
    return comeBackAfter(deps, ctx, gate.untilMs, `request ${requestId} is being executed by another copy`);
  return undefined;
}

const GIVE_BACK_FAILED =
  'could not give the telling back: it holds until its lease runs out, then a copy tells';

/**
 * Writes the request's final (`recordFinal`, the first time only) and, with `tell`, claims its
 * telling in the same put: false when a final was there already (nothing claimed), the claim
 * held when written with one, true when written without.
 */
export async function recordFinalClaimed(
  deps: RecordDeps,
  ctx: RecordContext,
  final: FinalOutcome,
  tell: boolean,
): Promise<HeldTelling | boolean> {
  const at = new Date(final.at);
  const owner = ownerOf(ctx);
  const telling: TellingClaim | undefined = tell
    ? { owner: ownerFor(ctx), untilMs: lockExpiry(deps, ctx.timing) }
    : undefined;
  if (!(await recordFinal(deps.table, final, at, owner, telling))) return false;
  if (!telling) return true;
  return { release: () => releaseFinalTelling(deps.table, final, at, owner, telling) };
}

/**
 * Another end of the request was recorded before this one: that one is its end, told by whoever
 * wrote it (a copy of ours that crashed before telling is retried, and tells it then). Logged only.
 */
async function endedOtherwise(deps: RecordDeps, ctx: RecordContext, lost: Finished): Promise<RecordResult> {
  const final = await readFinal(deps.table, ctx.request.requestId);
  ctx.log.info('the request ended otherwise first: this end is not recorded or told', {
    result: 'replayed',
    lost: lost.result,
    lostRule: lost.rule,
    ...(final ? { ended: final.result, endedRule: final.rule } : {}),
  });
  return 'replayed';
}

const pick = ({ result, reason, rule, mayHaveBeenDone }: Finished) => ({
  result,
  reason,
  rule,
  // Stored with the end: the headline and the CI gate read it (src/cli/wait.ts), not the words.
  ...(mayHaveBeenDone === undefined ? {} : { mayHaveBeenDone }),
});

/** A stored end (a final, an effect's outcome), with what the final says besides its result. */
export type StoredEnd = StoredOutcome & Pick<FinalOutcome, 'answeredBy' | 'stuckExpired' | 'mayHaveBeenDone'>;

/**
 * A request's own stored end with no audit record (the invocation ended after the final, before or
 * during the posts, or the copy that wrote it is telling it now): a copy tells it as it first would
 * have been, with its audit record and to the channel, rather than as a replay the channel never
 * hears. Told by one copy only: the one whose claim is written first (the first copy claims too, in
 * finish). One that fails before its audit record gives the claim back (finish). An end whose posts
 * were made and whose audit record alone failed (`toldUnrecorded`) is recorded, not told again.
 */
export async function tellUntold(
  deps: RecordDeps,
  ctx: RecordContext,
  stored: StoredEnd,
): Promise<RecordResult> {
  // The writer of the final holds its telling while the claim it wrote with it lasts; after, the
  // copies claim it apart, the first one tells.
  const finalClaim = await finalTellingUntil(deps.table, ctx.request.requestId, deps.clock());
  if (finalClaim !== undefined) return toldByAnother(deps, ctx, finalClaim);
  const owner = ownerFor(ctx);
  if (!(await claim(deps, ctx, owner))) return toldByAnother(deps, ctx);
  const release = () => releaseTelling(deps.table, ctx.request.requestId, owner);
  const told = await toldUnrecorded(deps.table, ctx.request.requestId).catch(async (error: unknown) => {
    await release().catch((failed: unknown) => ctx.log.warn(GIVE_BACK_FAILED, { error: failed }));
    throw error;
  });
  const held = { release, told };
  const done = {
    result: stored.result as OutcomeResult,
    rule: stored.rule,
    reason: stored.reason,
    dryRun: stored.result === 'would-mutate' || isDryRun(deps.policy, ctx.request),
    // A person's answer or the tick's expiry is recorded as such, whoever tells it (this copy's
    // own decision, if it made one, is not what ended it).
    ...(stored.answeredBy ? { answeredBy: stored.answeredBy } : {}),
    ...(stored.stuckExpired ? { stuckExpired: true } : {}),
    ...(stored.mayHaveBeenDone === undefined ? {} : { mayHaveBeenDone: stored.mayHaveBeenDone }),
    // Its writer died before telling it: logged as a re-tell (told twice rather than never).
    retold: true,
  };
  return finish(deps, ctx, done, 'executed', held);
}

/** The telling claim, held to the end of this invocation plus the lock margin (as an effect's lock). */
const claim = (deps: RecordDeps, ctx: RecordContext, owner: string) =>
  claimTelling(deps.table, ctx.request.requestId, owner, deps.clock(), lockExpiry(deps, ctx.timing));

/**
 * Another copy holds the telling of this request's end: it tells it, unless its process dies first.
 * Its message may be this very one (SQS delivers at least once: a duplicate runs beside it), so
 * this copy must not let its message be deleted: it comes back once that claim has run out, then
 * finds the end told (and replays it quietly) or tells it. `untilMs`: the claim's expiry when
 * known; else read from the claim refused (none there any more: come back at once and claim).
 */
async function toldByAnother(deps: RecordDeps, ctx: RecordContext, untilMs?: number): Promise<never> {
  const until = untilMs ?? (await tellingClaimUntil(deps.table, ctx.request.requestId)) ?? deps.clock();
  return comeBackAfter(
    deps,
    ctx,
    until,
    'another copy is telling the end now: this copy comes back once its claim ran out',
  );
}

/** A held request cancelled (`/autopilot cancel`): it ends here, told to the requester and the channel. */
export function endCancelled(
  deps: RecordDeps,
  ctx: RecordContext,
  cancel: CancelMark,
): Promise<RecordResult> {
  const done = { result: 'cancelled' as const, rule: 'cancel', reason: cancelReason(cancel), dryRun: false };
  return finish(deps, ctx, done, 'decided');
}
