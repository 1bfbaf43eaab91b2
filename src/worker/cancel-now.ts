/**
 * Ending a cancelled request at once, as the worker would when it next sees it: the final
 * *cancelled* (a copy in flight then replays it), the held record gone, the audit record, and
 * the requester and the channel told. The CLI does this right after marking the cancel; the
 * webhook leaves it to the worker (it may not write the audit trail).
 */
import { actionTarget, effectKey, requesterKey } from '../actions/request.js';
import type { SlackMessage } from '../slack/post.js';
import { recordFinal, writeAudit } from '../state/audit.js';
import { endHold, type HeldRecord } from '../state/held.js';
import type { StateTable } from '../state/table.js';
import { outcomeMessage } from './replies.js';

/** The ending the worker would write, written at once (a copy in flight then replays it). */
export async function endCancelledNow(
  table: StateTable,
  held: HeldRecord,
  reason: string,
  now: Date,
  tell: {
    tell?: (urls: string[], message: SlackMessage) => Promise<void>;
    channelUrl?: () => Promise<string | undefined>;
  } = {},
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
