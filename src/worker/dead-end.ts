/**
 * A copy that died on its last receive after its request's end was stored, before telling it: its
 * own call made the change (the effect's claim completed, the final not yet written: a timeout right
 * after the Console API answered), its final was written and never told, or another request made
 * the change while it ran. A copy received again replays such an end (replay-end.ts); none comes
 * after a last receive, so the release tick (dead-attempts.ts) does what that copy would have done:
 * it records and tells the end as the worker's replay does (its own end told as at first, the
 * channel too, with its final; another request's change told to its requester as "done by request
 * X", with a final of its own), so a CI gate ends with it (0 for a change made). Once: the tick that
 * claims the mark tells, and a copy telling the same end now holds the telling claim (finish.ts).
 */
import type { SQSRecord } from 'aws-lambda';
import type { Logger } from '../observability/logger.js';
import { isDryRun } from '../policy/decide.js';
import { endingRecorded } from '../state/audit.js';
import { type LastReceiveMark, markLastReceive } from '../state/last-receive.js';
import type { RequestState } from '../state/request-state.js';
import type { StateTable } from '../state/table.js';
import type { StoredEnd } from './finish.js';
import type { RecordContext, RecordDeps, RecordResult, Request } from './record.js';
import { replay } from './replay-end.js';

/** The tick's time for one telling when it has no deadline of its own (a test calling it directly). */
const TICK_TIMEOUT_MS = 60_000;

/** The end the worker replays for a copy of the request received now: its final, else the effect's completed change. */
export function storedEnd(state: RequestState): StoredEnd | undefined {
  return state.final ?? (state.effect.status === 'completed' ? state.effect.outcome : undefined);
}

/** No record of the request says its end was told (as replay-end.ts asks): the copy died before. */
export async function endUntold(table: StateTable, requestId: string, end: StoredEnd): Promise<boolean> {
  return !(await endingRecorded(table, requestId, end.result));
}

/**
 * Tells `end` for the dead copy `mark` (its mark claimed by this tick) as a copy of the request
 * would, on the worker's deps run at the tick's `now`. A failure puts the mark back (logged): the
 * next tick looks again, as the worker's retry would, and finds the end told or tells it.
 */
export async function tellStoredEnd(
  worker: RecordDeps,
  mark: LastReceiveMark,
  end: StoredEnd,
  look: TickLook,
): Promise<boolean> {
  const { request, log } = look;
  try {
    const result = await replayAsCopy(worker, deadRecord(mark), mark.effectKey, end, look);
    log.info('last receive died after its end was stored: told here, as a copy replays it', {
      result,
      ...(end.requestId === request.requestId ? {} : { madeBy: end.requestId }),
    });
    return true;
  } catch (error) {
    // Another copy telling it now (its claim held: RetryLater), or a failure: looked at again.
    await markLastReceive(worker.table, mark).catch(() => {});
    log.warn('could not tell the end a copy that died on its last receive left untold: the next tick does', {
      error,
    });
    return false;
  }
}

/** What the tick read of the request when it tells a stored end, and its invocation's time. */
export interface TickLook {
  request: Request;
  state: RequestState;
  now: Date;
  remainingMs: () => number;
  log: Logger;
}

/**
 * The worker's replay of the stored end `end` (replay-end.ts) for `record`, a copy of the request
 * received at the tick's `now` (the worker's deps run at that time): the dead receive, or a stuck
 * wait's (stuck.ts: no message, so its records name none, as the tick's other ends of it). Its
 * own change is told as at first, the channel too; another request's as "done by request X", with
 * a final of its own. Throws as the replay does (another copy telling it now: RetryLater).
 */
export function replayAsCopy(
  worker: RecordDeps,
  record: SQSRecord,
  key: string,
  end: StoredEnd,
  look: TickLook,
): Promise<RecordResult> {
  const { request, state, now, log } = look;
  const deps: RecordDeps = { ...worker, clock: () => now.getTime() };
  const ctx: RecordContext = {
    record,
    request,
    key,
    log,
    timing: { remainingMs: () => Math.min(look.remainingMs(), TICK_TIMEOUT_MS) },
    // As the worker reads them for a copy (process-record.ts).
    held: state.held,
    reached: state.reached || (state.effectReached && !isDryRun(worker.policy, request)),
    formerClaimReached: state.formerEffectReached,
  };
  return replay(deps, ctx, end);
}

/** The dead receive as the worker's record path reads it: its message id and receipt handle. */
function deadRecord(mark: LastReceiveMark): SQSRecord {
  return copyRecord(mark.request, {
    messageId: mark.messageId,
    receiptHandle: mark.receiptHandle ?? '',
    receives: mark.receives,
    sentAtMs: mark.sentAtMs ?? mark.markedAtMs,
    receivedAtMs: mark.markedAtMs,
  });
}

/** A copy of the request (`body`) as the worker's record path reads one. */
export function copyRecord(
  body: string,
  copy: {
    messageId: string;
    receiptHandle: string;
    receives: number;
    sentAtMs: number;
    receivedAtMs: number;
  },
): SQSRecord {
  return {
    messageId: copy.messageId,
    receiptHandle: copy.receiptHandle,
    body,
    attributes: {
      ApproximateReceiveCount: String(copy.receives),
      SentTimestamp: String(copy.sentAtMs),
      SenderId: '',
      ApproximateFirstReceiveTimestamp: String(copy.receivedAtMs),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: '',
    awsRegion: '',
  };
}
