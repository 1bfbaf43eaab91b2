/**
 * Cancelling a held request. `/autopilot cancel` marks the held item cancelled
 * (`markCancelled`: a conditional write that loses to a worker already executing it); the
 * release tick sends a marked request back at once, and the worker ends it as *cancelled*
 * (final, audit, the requester and the channel told). Any copy still in flight reads the mark
 * or the final with its state, and a copy past that read finds the mark when it tries to start
 * executing: a cancelled request is never executed later. `autopilot cancel` (a terminal, with
 * the operator's credentials) marks and then ends the request itself at once.
 */
import { actionTarget, effectKey, requesterKey } from '../actions/request.js';
import type { SlackMessage } from '../slack/post.js';
import { recordFinal, writeAudit } from '../state/audit.js';
import { type CancelMark, endHold, type HeldRecord, markCancelled, readHeld } from '../state/held.js';
import type { StateTable } from '../state/table.js';
import { outcomeMessage } from './replies.js';

export interface CancelRequest {
  requestId: string;
  /** Who cancels, as the audit names them: `slack:U123`, `cli:alice`. */
  by: string;
  reason?: string | undefined;
  now: Date;
}

export type CancelOutcome =
  | { ok: true; held: HeldRecord; reason: string }
  | { ok: false; code: 'not-held' | 'ended' | 'not-allowed' | 'executing'; message: string };

export interface CancelDeps {
  table: StateTable;
  /** Whether the canceller may cancel this request (the grant for its action); the refusal's words otherwise. */
  mayCancel: (held: HeldRecord) => true | string;
  /** End the request now (final, audit, replies) rather than leave it to the worker (the CLI). */
  endNow?: {
    tell?: (urls: string[], message: SlackMessage) => Promise<void>;
    channelUrl?: () => Promise<string | undefined>;
  };
}

/** The words an ending by cancel carries. */
export function cancelReason(mark: CancelMark): string {
  return `cancelled by ${mark.by}${mark.reason ? ` (“${mark.reason}”)` : ''} while it was held`;
}

const REFUSED = {
  'not-held': (id: string) => `request ${id} is not held (it ended, or never waited)`,
  executing: (id: string) => `request ${id} is being executed right now; it can no longer be cancelled`,
  'already-cancelled': (id: string) => `request ${id} is already cancelled`,
} as const;

export async function cancelHeldRequest(deps: CancelDeps, cancel: CancelRequest): Promise<CancelOutcome> {
  const { requestId } = cancel;
  const held = await readHeld(deps.table, requestId);
  if (!held || held.cancel) {
    const code = held ? 'ended' : 'not-held';
    return { ok: false, code, message: REFUSED[held ? 'already-cancelled' : 'not-held'](requestId) };
  }
  const allowed = deps.mayCancel(held);
  if (allowed !== true) return { ok: false, code: 'not-allowed', message: allowed };
  const mark: CancelMark = {
    by: cancel.by,
    at: cancel.now.toISOString(),
    ...(cancel.reason ? { reason: cancel.reason } : {}),
  };
  const marked = await markCancelled(deps.table, requestId, mark);
  if (marked !== 'marked') {
    const code = marked === 'executing' ? 'executing' : marked === 'not-held' ? 'not-held' : 'ended';
    return { ok: false, code, message: REFUSED[marked](requestId) };
  }
  const reason = cancelReason(mark);
  if (deps.endNow) await endCancelledNow(deps.table, held, reason, cancel.now, deps.endNow);
  return { ok: true, held, reason };
}

/** The ending the worker would write, written at once (a copy in flight then replays it). */
async function endCancelledNow(
  table: StateTable,
  held: HeldRecord,
  reason: string,
  now: Date,
  tell: NonNullable<CancelDeps['endNow']>,
): Promise<void> {
  const at = now.toISOString();
  const first = await recordFinal(
    table,
    { result: 'cancelled', reason, rule: 'cancel', requestId: held.requestId, at },
    now,
  );
  await endHold(table, held.requestId);
  if (!first) return;
  await writeAudit(table, {
    requestId: held.requestId,
    at: now,
    action: held.request.action,
    target: actionTarget(held.request),
    effectKey: effectKey(held.request),
    requester: requesterKey(held.request.requestedBy),
    rule: 'cancel',
    reason,
    result: 'cancelled',
    dryRun: false,
  });
  if (!tell.tell) return;
  const urls = [held.request.reply?.slackResponseUrl, await tell.channelUrl?.()].filter(
    (url): url is string => typeof url === 'string' && url !== '',
  );
  const message = outcomeMessage({
    request: held.request,
    requestId: held.requestId,
    result: 'cancelled',
    rule: 'cancel',
    reason,
    dryRun: held.request.dryRun === true,
  });
  await tell.tell(urls, message);
}
