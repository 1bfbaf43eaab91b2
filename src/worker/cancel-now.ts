/**
 * Ending a cancelled request at once, as the worker would when it next sees it: the final
 * *cancelled* (a copy in flight then replays it), the held record gone, the audit record, and
 * the requester and the channel told. The CLI does this right after marking the cancel; the
 * webhook leaves it to the worker (it may not write the audit trail).
 */
import { randomUUID } from 'node:crypto';
import { actionTarget, effectKey, liveReplyUrl, requesterKey, requestOwner } from '../actions/request.js';
import type { SlackMessage } from '../slack/post.js';
import { type FinalOutcome, readFinal, recordFinal, writeAudit } from '../state/audit.js';
import { type CancelMark, endHold, type HeldRecord } from '../state/held.js';
import { startEndingHeld } from '../state/held-gates.js';
import type { StateTable } from '../state/table.js';
import { releaseFinalTelling } from '../state/telling.js';
import { type OutcomeResult, outcomeMessage } from './replies.js';

/** How a held request ends when it is ended at once, outside the worker's own pass over it. */
export interface HeldEnding {
  result: OutcomeResult;
  rule: string;
  reason: string;
  dryRun: boolean;
  /** The request whose end this repeats (its change made by another): told "Already done … by request X". */
  replayOf?: string;
  /** Denied, but an earlier attempt may have made the change (replies.ts, `mayHaveBeenDone`). */
  mayHaveBeenDone?: boolean;
  /** A person's answer ends it (answered.ts): who, kept in the audit record (`policy replay` counts it apart). */
  answeredBy?: string;
  /** The release tick ends a stuck wait at its expiry (stuck.ts): kept in the audit record (`policy replay` counts it apart). */
  stuckExpired?: boolean;
}

/** Who is told: the request's reply URL, and the channel when `channelUrl` names one. */
export interface Telling {
  tell?: (urls: string[], message: SlackMessage) => Promise<void>;
  channelUrl?: () => Promise<string | undefined>;
  /** Where a warning goes: a telling claim that could not be given back (it runs out by its lease). */
  warn?: (message: string, fields: { requestId: string; error: unknown }) => void;
}

/**
 * The ending the worker would write, written at once (a copy in flight then replays it): the
 * final, the held record gone, the audit record, and the people told (once: a final already
 * there means another did all this; a telling claimed by a copy of the request means it tells). The end it lost to when another was recorded first (a
 * worker's denial racing a cancel): nobody is told this one, and the caller says what it was.
 */
export async function endHeldNow(
  table: StateTable,
  held: HeldRecord,
  ending: HeldEnding,
  now: Date,
  tell: Telling = {},
): Promise<
  { ended: true } | { ended: false; final: FinalOutcome | undefined; cancelled?: CancelMark | undefined }
> {
  const { result, rule, reason } = ending;
  // Where it is told is read first (the channel's URL is a secret, whose read can fail): failing
  // here leaves the request held, for its next pass (the tick's, a worker's) to end and tell it.
  // Read after the final, nobody would: a stuck wait never comes back, and a copy finding the
  // audit record replays the end without the channel.
  const channelUrl = await tell.channelUrl?.();
  // Told under a claim, as the worker tells (finish.ts), written with the final: a copy of the
  // request reaching a worker before the audit record below finds this end untold and stays
  // silent while the claim holds.
  const final = { result, reason, rule, requestId: held.requestId, at: now.toISOString() };
  const owner = requestOwner(held.request);
  const telling = { owner: `now/${randomUUID()}`, untilMs: now.getTime() + TELLING_LEASE_MS };
  // An end other than a cancel is refused once a person cancelled the request since it was read,
  // and a cancel after this gate is refused (src/state/held-gates.ts): never both. `cancelled`: the
  // cancel is its end, which the caller (or the worker, when the request comes back) records.
  if (result !== 'cancelled') {
    const gate = await startEndingHeld(table, held.requestId, telling.untilMs);
    if (gate.state === 'cancelled') return { ended: false, final: undefined, cancelled: gate.cancel };
  }
  const first = await recordFinal(table, final, now, owner, telling);
  try {
    await endHold(table, held.requestId);
    if (!first) return { ended: false, final: await readFinal(table, held.requestId) };
    await writeAuditOf(table, held, ending, now);
  } catch (error) {
    // Given back: a copy redriven later tells the end instead. A give-back that fails too is a
    // warning only: the error thrown stays this one (the cause), and the claim runs out by its lease.
    if (first)
      await releaseFinalTelling(table, final, now, owner, telling).catch((releaseError: unknown) =>
        tell.warn?.('could not give the telling back: it holds until its lease runs out, then a copy tells', {
          requestId: held.requestId,
          error: releaseError,
        }),
      );
    throw error;
  }
  // The end counts as told from its audit record on (a copy replays it without the channel): the
  // claim is kept, and the posts do not throw (they count what they could not deliver).
  if (tell.tell) {
    const urls = [liveReplyUrl(held.request, now), channelUrl].filter(
      (url): url is string => typeof url === 'string' && url !== '',
    );
    await tell.tell(urls, outcomeMessage({ request: held.request, requestId: held.requestId, ...ending }));
  }
  return { ended: true };
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
