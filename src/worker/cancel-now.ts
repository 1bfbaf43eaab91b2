/**
 * Ending a cancelled request at once, as the worker would when it next sees it: the final
 * *cancelled* (a copy in flight then replays it), the held record gone, the audit record, and
 * the requester and the channel told. The CLI does this right after marking the cancel; the
 * webhook leaves it to the worker (it may not write the audit trail).
 */
import { actionTarget, effectKey, liveReplyUrl, requesterKey, requestOwner } from '../actions/request.js';
import type { SlackMessage } from '../slack/post.js';
import { type FinalOutcome, readFinal, recordFinal, writeAudit } from '../state/audit.js';
import { endHold, type HeldRecord } from '../state/held.js';
import type { StateTable } from '../state/table.js';
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
}

/**
 * The ending the worker would write, written at once (a copy in flight then replays it): the
 * final, the held record gone, the audit record, and the people told (once: a final already
 * there means another did all this). The end it lost to when another was recorded first (a
 * worker's denial racing a cancel): nobody is told this one, and the caller says what it was.
 */
export async function endHeldNow(
  table: StateTable,
  held: HeldRecord,
  ending: HeldEnding,
  now: Date,
  tell: Telling = {},
): Promise<{ ended: true } | { ended: false; final: FinalOutcome | undefined }> {
  const { result, rule, reason, dryRun } = ending;
  const first = await recordFinal(
    table,
    { result, reason, rule, requestId: held.requestId, at: now.toISOString() },
    now,
    requestOwner(held.request),
  );
  await endHold(table, held.requestId);
  if (!first) return { ended: false, final: await readFinal(table, held.requestId) };
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
  if (!tell.tell) return { ended: true };
  const urls = [liveReplyUrl(request, now), await tell.channelUrl?.()].filter(
    (url): url is string => typeof url === 'string' && url !== '',
  );
  await tell.tell(urls, outcomeMessage({ request, requestId: held.requestId, ...ending }));
  return { ended: true };
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
