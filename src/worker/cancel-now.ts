/**
 * Ending a cancelled request at once, as the worker would when it next sees it: the final
 * *cancelled* (a copy in flight then replays it), the held record gone, the audit record, and
 * the requester and the channel told. The CLI does this right after marking the cancel; the
 * webhook leaves it to the worker (it may not write the audit trail).
 */
import { randomUUID } from 'node:crypto';
import { actionTarget, effectKey, liveReplyUrl, requesterKey, requestOwner } from '../actions/request.js';
import type { SlackMessage } from '../slack/post.js';
import {
  endingRecorded,
  type FinalOutcome,
  readFinal,
  recordFinal,
  type TellingClaim,
  writeAudit,
} from '../state/audit.js';
import { type CancelMark, endHold, type HeldRecord } from '../state/held.js';
import { startEndingHeld } from '../state/held-gates.js';
import type { StateTable } from '../state/table.js';
import {
  claimTelling,
  finalTellingHeld,
  recordTold,
  releaseFinalTelling,
  releaseTelling,
  toldUnrecorded,
} from '../state/telling.js';
import { endFlags, type HeldEnding, storedEnding, withoutFlags } from './held-ending.js';
import { outcomeMessage } from './replies.js';

export type { HeldEnding };

/**
 * How `endHeldNow` went: `ended`, this end is the request's; else `final`, the end recorded first
 * (or `cancelled`, a person's cancel this end lost to; `executing`, a copy's approval in flight). `retold`: the end told here is one another
 * pass recorded and never told (it died first), told now as stored (twice rather than never).
 */
export type HeldEnded = (
  | { ended: true }
  | {
      ended: false;
      final: FinalOutcome | undefined;
      cancelled?: CancelMark | undefined;
      /** Not ended: a copy's approval of it is being made now (its call may be in flight); its outcome ends it. */
      executing?: true;
    }
) & { retold?: true };

/** Who is told: the request's reply URL, and the channel when `channelUrl` names one. */
export interface Telling {
  tell?: (urls: string[], message: SlackMessage) => Promise<void>;
  channelUrl?: () => Promise<string | undefined>;
  /** Where a warning goes: a telling claim that could not be given back (it runs out by its lease). */
  warn?: (message: string, fields: { requestId: string; error: unknown }) => void;
}

/**
 * The ending the worker would write, written at once (a copy in flight then replays it): the
 * final, the people told, the audit record, and the held record gone (once: a final already
 * there means another did all this; a telling claimed by a copy of the request means it tells). The end it lost to when another was recorded first (a
 * worker's denial racing a cancel): nobody is told this one, and the caller says what it was; that
 * end itself, if its writer died before telling it, is told here instead (as it was stored).
 *
 * In that order, as the worker tells (tell-end.ts): the audit record marks the end told, so it
 * comes after the posts, and the held record, which is what brings the request back to a later
 * pass (the tick's, or a worker's copy it sends), goes last. A process dying anywhere in between
 * (a Lambda timeout, the CLI killed) leaves this end to a later pass, which finds its final untold
 * and tells it (twice rather than never); without a crash it is told once.
 */
export async function endHeldNow(
  table: StateTable,
  held: HeldRecord,
  ending: HeldEnding,
  now: Date,
  tell: Telling = {},
): Promise<HeldEnded> {
  const { result, rule, reason } = ending;
  // Where it is told is read first (the channel's URL is a secret, whose read can fail): failing
  // here leaves the request held, for its next pass (the tick's, a worker's) to end and tell it.
  // Read after the final, nobody would: a stuck wait never comes back, and a copy finding the
  // audit record replays the end without the channel.
  const channelUrl = await tell.channelUrl?.();
  // Told under a claim, as the worker tells (finish.ts), written with the final: a copy of the
  // request reaching a worker before the audit record below finds this end untold and stays
  // silent while the claim holds.
  const final = {
    result,
    reason,
    rule,
    requestId: held.requestId,
    at: now.toISOString(),
    ...endFlags(ending),
  };
  const owner = requestOwner(held.request);
  const telling = { owner: `now/${randomUUID()}`, untilMs: now.getTime() + TELLING_LEASE_MS };
  // An end other than a cancel is refused once a person cancelled the request since it was read,
  // and a cancel after this gate is refused (src/state/held-gates.ts): never both. `cancelled`: the
  // cancel is its end, which the caller (or the worker, when the request comes back) records.
  // Refused too while a copy's approval is being made (its executing mark is live): the end is
  // that copy's outcome. Its final, if written already, is told below when it is untold.
  let executing = false;
  if (result !== 'cancelled') {
    const gate = await startEndingHeld(table, held.requestId, telling.untilMs, {
      effect: effectKey(held.request),
      nowMs: now.getTime(),
      ...(ending.answering ? { ownRequest: ending.answering } : {}),
    });
    if (gate.state === 'cancelled') return { ended: false, final: undefined, cancelled: gate.cancel };
    executing = gate.state === 'executing';
  }
  const told = { table, held, ending, now, tell, channelUrl };
  if (!executing && (await recordFinal(table, final, now, owner, telling))) {
    await tellThenRecord(told, {
      release: () => releaseFinalTelling(table, final, now, owner, telling),
    });
    return { ended: true };
  }
  const found = await readFinal(table, held.requestId);
  // Ended already, by this same end or another (a worker's, an answer's, a cancel's), written by a
  // pass that may have died before telling it (the held record outlives the final for that): told
  // now if it is untold, as it was stored. Dropped with the held record, nobody would ever tell it.
  if (found) {
    // The same end may be another pass's (a worker's maxDeferHours denial the tick would also
    // write): what it is (an answer, the tick's expiry) is the stored one's, not this pass's.
    const same = found.result === result && found.rule === rule;
    const sameEnding = { ...withoutFlags(ending), ...endFlags(found) };
    const as = { ...told, ending: same ? sameEnding : storedEnding(found, held, ending) };
    if (await tellUntoldNow(as, found, telling))
      return same ? { ended: true, retold: true } : { ended: false, final: found, retold: true };
  }
  if (!found && executing) return { ended: false, final: undefined, executing: true };
  // Told already. A claim held on its telling (its writer is telling it now, or died and the claim
  // has not run out) keeps the held record for a later pass to tell it.
  if (!found || (await endingRecorded(table, held.requestId, found.result)))
    await endHold(table, held.requestId);
  return { ended: false, final: found };
}

interface Told {
  table: StateTable;
  held: HeldRecord;
  ending: HeldEnding;
  now: Date;
  tell: Telling;
  channelUrl: string | undefined;
}

/**
 * Tells the stored end `found` an earlier pass wrote and never recorded told (it died), once the
 * claim written with it ran out, under a claim of its own (claimTelling: one teller at a time).
 * True when told here.
 */
async function tellUntoldNow(told: Told, found: FinalOutcome, telling: TellingClaim): Promise<boolean> {
  const { table, held, now } = told;
  const { requestId } = held;
  if (await endingRecorded(table, requestId, found.result)) return false;
  if (await finalTellingHeld(table, requestId, now.getTime())) return false;
  if (!(await claimTelling(table, requestId, telling.owner, now.getTime(), telling.untilMs))) return false;
  const release = () => releaseTelling(table, requestId, telling.owner);
  const posted = await toldUnrecorded(table, requestId).catch(async (error: unknown) => {
    await giveBack(told, release);
    throw error;
  });
  // As it was stored (the earlier pass's words: its reason's times are its own).
  await tellThenRecord({ ...told, ending: { ...told.ending, reason: found.reason } }, { release, posted });
  return true;
}

/**
 * The posts, then the audit record, then the held record gone. The posts do not throw (they count
 * what they could not deliver). Before the audit record is written, a failure gives the telling
 * claim back (a later pass tells); an audit put failing after the posts marks the end told apart
 * (`recordTold`), so the next pass records it without posting again.
 */
async function tellThenRecord(
  told: Told,
  claim: { release: () => Promise<void>; posted?: boolean },
): Promise<void> {
  const { table, held, ending, now, tell, channelUrl } = told;
  try {
    if (tell.tell && !claim.posted) {
      const urls = [liveReplyUrl(held.request, now), channelUrl].filter(
        (url): url is string => typeof url === 'string' && url !== '',
      );
      await tell.tell(urls, outcomeMessage({ request: held.request, requestId: held.requestId, ...ending }));
    }
    const write = () => writeAuditOf(table, held, ending, now);
    if (claim.posted || !tell.tell) await write();
    else
      await recordTold(table, held.requestId, now, write, (error: unknown) =>
        tell.warn?.('end told, but neither recorded nor marked told: a later pass tells it again', {
          requestId: held.requestId,
          error,
        }),
      );
  } catch (error) {
    await giveBack(told, claim.release);
    throw error;
  }
  // Told and recorded: the end counts as told whatever fails now. The held record left by a
  // failure here is ended by the next pass (it finds this end recorded).
  await endHold(table, held.requestId);
}

/**
 * Gives the telling claim back: a later pass tells. A give-back that fails too is a warning only:
 * the error thrown stays the caller's (the cause), and the claim runs out by its lease.
 */
async function giveBack(told: Told, release: () => Promise<void>): Promise<void> {
  await release().catch((releaseError: unknown) =>
    told.tell.warn?.(
      'could not give the telling back: it holds until its lease runs out, then a copy tells',
      {
        requestId: told.held.requestId,
        error: releaseError,
      },
    ),
  );
}

/**
 * How long a telling claimed here holds: the longest a Lambda (the release tick, an answered
 * question) runs; the CLI tells within seconds. A claimer that crashed holds it no longer after.
 */
const TELLING_LEASE_MS = 15 * 60_000;

async function writeAuditOf(
  table: StateTable,
  held: HeldRecord,
  ending: HeldEnding,
  now: Date,
): Promise<void> {
  const { result, rule, reason, dryRun } = ending;
  const { request } = held;
  await writeAudit(table, {
    requestId: held.requestId,
    at: now,
    action: request.action,
    target: actionTarget(request),
    effectKey: effectKey(request),
    requester: requesterKey(request.requestedBy),
    rule,
    reason,
    result,
    dryRun,
    ...(ending.answeredBy ? { answeredBy: ending.answeredBy } : {}),
    ...(ending.stuckExpired ? { stuckExpired: true } : {}),
    ...(ending.mayHaveBeenDone === undefined ? {} : { mayHaveBeenDone: ending.mayHaveBeenDone }),
  });
}

/** A cancelled request's ending, written at once. */
export function endCancelledNow(
  table: StateTable,
  held: HeldRecord,
  reason: string,
  now: Date,
  tell: Telling = {},
): ReturnType<typeof endHeldNow> {
  const ending = {
    result: 'cancelled' as const,
    rule: 'cancel',
    reason,
    // As the worker's own ending of a cancelled request (src/worker/finish.ts): a cancel changes
    // nothing, dry run or not, and its record says the same whoever ends it.
    dryRun: false,
  };
  return endHeldNow(table, held, ending, now, tell);
}
