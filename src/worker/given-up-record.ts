/**
 * The record of a give-up (src/worker/give-up.ts): its `dead-lettered` audit record, which the CI
 * gate reads (src/cli/wait.ts), and the mark of when the request was given up, which tells a later
 * message under the id apart from a copy of the request that ended (src/worker/ended-copy.ts).
 */
import { actionTarget, requesterKey, requestOwner } from '../actions/request.js';
import type { Metrics } from '../observability/metrics.js';
import { writeAudit } from '../state/audit.js';
import { markGivenUpEnd } from '../state/given-up-end.js';
import { currentDate, type RecordContext, type RecordDeps } from './record.js';

/** What the record needs: the worker's (give-up.ts) or the release tick's (dead-attempts.ts, for a copy that died). */
type GivenUpDeps = Pick<RecordDeps, 'table' | 'clock'>;
type GivenUpOf = Pick<RecordContext, 'request' | 'key' | 'log'> & { record: { messageId: string } };

/** The audit record's rule, the DLQ metric's reason and the Decisions metric's outcome. */
export const GIVEN_UP_RULE = 'retries-exhausted';

/**
 * Counts a give-up told, by the worker or the release tick: in DeadLettered, and in Decisions as an
 * outcome told like any other end, so the dashboard's "Decisions" graph shows requests given up too.
 */
export function countGivenUp(
  metrics: Metrics | undefined,
  request: GivenUpOf['request'],
  messageId: string,
): void {
  const properties = { requestId: request.requestId, messageId };
  metrics?.put('DeadLettered', 1, { Reason: GIVEN_UP_RULE }, properties);
  metrics?.put('Decisions', 1, { Action: request.action, Outcome: GIVEN_UP_RULE }, properties);
}

export async function auditGivenUp(
  deps: GivenUpDeps,
  ctx: GivenUpOf,
  reason: string,
  mayHaveBeenDone: boolean,
  gaveUp: string[] = [],
): Promise<void> {
  const { request } = ctx;
  const at = currentDate(deps);
  // The copies that deferred their give-up to this one end with it: their CI gates wait on their own message.
  const endsMessages = gaveUp.filter((id) => id !== ctx.record.messageId);
  const record = await writeAudit(deps.table, {
    requestId: request.requestId,
    at,
    action: request.action,
    target: actionTarget(request),
    effectKey: ctx.key,
    requester: requesterKey(request.requestedBy),
    rule: GIVEN_UP_RULE,
    reason,
    result: 'dead-lettered',
    dryRun: request.dryRun ?? false,
    messageId: ctx.record.messageId,
    // Stored, not left to the reason's words: the CI gate reads it (exit 5, src/cli/wait.ts).
    mayHaveBeenDone,
    ...(endsMessages.length ? { endsMessages } : {}),
  });
  // After the record it points at. Not written (a failed put, a crash), a copy of the request first
  // received after now is decided afresh, as before the mark existed: logged, not thrown.
  const { requester, effectKey } = requestOwner(request, ctx.key);
  const end = { atMs: at.getTime(), record, owner: { requester, effectKey } };
  await markGivenUpEnd(deps.table, request.requestId, end).catch((error: unknown) =>
    ctx.log.error('could not mark when the request was given up: a late copy of it is decided afresh', {
      error,
    }),
  );
}
