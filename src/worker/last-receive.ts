/**
 * The worker's side of a copy's last receive (src/state/last-receive.ts): marked before any work,
 * so that a copy dying there (a timeout, a crash: no catch block runs) is told given up by the
 * release tick once its invocation is surely over (src/worker/dead-attempts.ts). An attempt that
 * records an end (a final, a hold) leaves the mark to the tick, which finds that end; one that
 * tells its give-up, or ends silently as it should (give-up.ts: another copy ends the request),
 * clears it, as does a message refused because another request owns its id (process-record.ts): it
 * is no copy of that request, and the tick must not tell it that request's end. (Admission's other
 * refusals, an invalid body, an unproven requester, a future date, come before the mark.)
 */
import { isLastReceive, receivesOf } from '../queue/redrive.js';
import { clearLastReceive, markLastReceive } from '../state/last-receive.js';
import { sentAtMs } from './ended-copy.js';
import type { RecordContext, RecordDeps } from './record.js';

/**
 * Past the invocation's end by this much the attempt is surely over: Lambda has stopped it at its
 * timeout, and a write it sent just before has landed. As the effect's lock margin (15 s).
 */
const DEAD_ATTEMPT_MARGIN_MS = 15_000;

/** On the record's last receive, marks it (one put). A failed put is logged: this attempt then goes on unmarked. */
export async function markIfLastReceive(deps: RecordDeps, ctx: RecordContext): Promise<void> {
  const { record, request, key } = ctx;
  if (!isLastReceive(record, deps.maxReceiveCount)) return;
  const now = deps.clock();
  const sent = sentAtMs(record);
  await markLastReceive(deps.table, {
    requestId: request.requestId,
    messageId: record.messageId,
    deadlineMs: now + ctx.timing.remainingMs() + DEAD_ATTEMPT_MARGIN_MS,
    markedAtMs: now,
    ...(sent === undefined ? {} : { sentAtMs: sent }),
    receives: receivesOf(record),
    effectKey: key,
    request: JSON.stringify(request),
    receiptHandle: record.receiptHandle,
  }).catch((error: unknown) =>
    ctx.log.warn('could not mark the last receive: should this attempt die, nobody is told', { error }),
  );
}

/** A message refused on its last receive after the mark (its id is another request's): nothing for the tick to tell. */
export async function clearIfLastReceive(deps: RecordDeps, ctx: RecordContext): Promise<void> {
  if (isLastReceive(ctx.record, deps.maxReceiveCount)) await clearOwnLastReceive(deps, ctx);
}

/** A give-up told on the last receive, or a silent end there (another copy ends it): the tick has nothing to tell. */
export async function clearOwnLastReceive(deps: RecordDeps, ctx: RecordContext): Promise<void> {
  await clearLastReceive(deps.table, ctx.request.requestId, ctx.record.messageId).catch((error: unknown) =>
    ctx.log.warn(
      'could not clear the last receive mark: the release tick reads the request before it tells anything',
      {
        error,
      },
    ),
  );
}
