/**
 * Cancelling a held request (`/autopilot cancel`, `autopilot cancel`): its final outcome becomes
 * *cancelled* (the first final wins, so a request that ended meanwhile is not cancelled), its
 * held record goes, an audit record says who cancelled it and why, and the requester and the
 * channel are told. A copy still in flight reads the final and replays it; a copy that read
 * its state before the cancel reads the final again after claiming the effect (process-record),
 * so a cancelled request is never executed later.
 */
import { actionTarget, effectKey, requesterKey } from '../actions/request.js';
import { postToSlack, type SlackMessage } from '../slack/post.js';
import { recordFinal, writeAudit } from '../state/audit.js';
import { endHold, type HeldRecord, readHeld } from '../state/held.js';
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
  | { ok: false; code: 'not-held' | 'ended' | 'not-allowed'; message: string; held?: HeldRecord };

export interface CancelDeps {
  table: StateTable;
  /** Whether `by` may cancel this request (the grant for its action); the refusal's words otherwise. */
  mayCancel: (held: HeldRecord) => true | string;
  /** Posts the "cancelled" message (to the requester's reply URL and the channel); none in tests that do not look. */
  tell?: (urls: string[], message: SlackMessage) => Promise<void>;
  channelUrl?: () => Promise<string | undefined>;
}

export async function cancelHeldRequest(deps: CancelDeps, cancel: CancelRequest): Promise<CancelOutcome> {
  const held = await readHeld(deps.table, cancel.requestId);
  if (!held) {
    return {
      ok: false,
      code: 'not-held',
      message: `request ${cancel.requestId} is not held (it ended, or never waited)`,
    };
  }
  const allowed = deps.mayCancel(held);
  if (allowed !== true) return { ok: false, code: 'not-allowed', message: allowed, held };
  const reason = `cancelled by ${cancel.by}${cancel.reason ? ` (“${cancel.reason}”)` : ''} while held (${held.why})`;
  const at = cancel.now.toISOString();
  const first = await recordFinal(
    deps.table,
    { result: 'cancelled', reason, rule: 'cancel', requestId: held.requestId, at },
    cancel.now,
  );
  await endHold(deps.table, held.requestId);
  if (!first) {
    return {
      ok: false,
      code: 'ended',
      message: `request ${held.requestId} already ended; nothing cancelled`,
      held,
    };
  }
  await writeAudit(deps.table, {
    requestId: held.requestId,
    at: cancel.now,
    action: held.request.action,
    target: actionTarget(held.request),
    effectKey: effectKey(held.request),
    requester: requesterKey(held.request.requestedBy),
    rule: 'cancel',
    reason,
    result: 'cancelled',
    dryRun: false,
  });
  if (deps.tell) {
    const urls = [held.request.reply?.slackResponseUrl, await deps.channelUrl?.()].filter(
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
    await deps.tell(urls, message);
  }
  return { ok: true, held, reason };
}

/** Posts to each URL; a post that fails does not undo the cancel (it is logged by the caller's poster). */
export function slackTeller(slack: Parameters<typeof postToSlack>[2]) {
  return async (urls: string[], message: SlackMessage) => {
    await Promise.all(urls.map((url) => postToSlack(url, message, slack)));
  };
}
