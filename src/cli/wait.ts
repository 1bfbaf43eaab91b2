/**
 * `enqueue … --wait`: how a deploy job gates on the outcome. It reads the request's story from
 * the state table (the final outcome the worker records, else the latest audit record) until the
 * request has ended or the timeout passes. Exit codes: 0 approved (or already done), 3 denied,
 * cancelled, stale, refused or dead-lettered (as recorded), 4 still held (deferred, asked, paused)
 * or still queued (never recorded: see `neverRecorded`) at the timeout, 5 ended so, but it is
 * stored as an end an attempt of it may have made the change after all (`mayHaveBeenDone`): check.
 */
import { CHANGE_MADE, endingOf, ownSteps } from '../audit/story.js';
import { type RequestOwner, readRequestAudit, sameOwner } from '../state/audit.js';
import type { StateTable } from '../state/table.js';
import { staleMayHaveApproved } from '../worker/execute.js';
import { saysMayHaveReached } from '../worker/replies.js';

export const WAIT_EXIT = { done: 0, refused: 3, held: 4, uncertain: 5 } as const;

/**
 * An end that is no plain refusal: an attempt whose answer was lost may have made the change (a
 * refusal of its retry, "already approved"; a phase guard met because that attempt moved the
 * trigger on; a denial or a give-up after it). A deploy gate told "refused" reads "not done".
 * The worker stores it with the end (`mayHaveBeenDone`), and that is what is read: a reason
 * reworded must never turn exit 5 back into 3.
 */
function mayHaveBeenDone(end: StoredEnd): boolean {
  return end.mayHaveBeenDone ?? saidMayHaveBeenDone(end);
}

/**
 * Ends written before the field was stored say it in their reason only: read by its words. Can go
 * once no such end is left: finals and audit records expire after 90 days (AUDIT_KEEP_DAYS), so
 * 90 days after every deployment stores the field.
 */
function saidMayHaveBeenDone({ result, reason }: StoredEnd): boolean {
  return saysMayHaveReached(reason) || (result === 'stale' && staleMayHaveApproved(reason));
}

type StoredEnd = { result: string; reason: string; mayHaveBeenDone?: boolean | undefined };

/** The exit code of an end: done, refused, or uncertain (stored as may have been done). */
function endExit(end: StoredEnd): WaitOutcome['exitCode'] {
  if (CHANGE_MADE.has(end.result)) return WAIT_EXIT.done;
  return mayHaveBeenDone(end) ? WAIT_EXIT.uncertain : WAIT_EXIT.refused;
}

export interface WaitOutcome {
  exitCode: (typeof WAIT_EXIT)[keyof typeof WAIT_EXIT];
  /** The result as recorded, or "queued" when the worker has not looked at it yet. */
  result: string;
  rule?: string;
  reason?: string;
}

/** The request's state now: ended (done or refused) or still waiting (undefined exit code). */
export async function outcomeNow(
  table: StateTable,
  requestId: string,
  /** The request the caller sent: when the id is another's, or its message was refused, the gate is shut. */
  mine?: SentRequest,
): Promise<Omit<WaitOutcome, 'exitCode'> & { exitCode?: WaitOutcome['exitCode'] }> {
  const read = await readRequestAudit(table, requestId);
  const { final } = read;
  // Its own message's dead-lettering, or that of the copy its give-up deferred to (which names it).
  const refused =
    mine &&
    read.records.find(
      (r) =>
        r.result === 'dead-lettered' &&
        (r.messageId === mine.messageId || r.endsMessages?.includes(mine.messageId)),
    );
  if (refused)
    return {
      exitCode: endExit(refused),
      result: refused.result,
      rule: refused.rule,
      reason: refused.reason,
    };
  // Any other message's dead-lettering is not this one's end: an earlier job's request given up
  // under the same id leaves no final, so this retry is decided afresh (and may be approved).
  const records = mine ? read.records.filter((r) => r.result !== 'dead-lettered') : read.records;
  const owner = final?.owner;
  if (mine && owner && !sameOwner(owner, mine.owner)) {
    const reason = `request id ${requestId} belongs to another request (by ${owner.requester}); this one is refused`;
    return { exitCode: WAIT_EXIT.refused, result: 'dead-lettered', rule: 'request-id-taken', reason };
  }
  const ending = endingOf(requestId, records, final);
  if (ending) {
    const exitCode = endExit(ending);
    return { exitCode, result: ending.result, rule: ending.rule, reason: ending.reason };
  }
  // Where it stands: its own latest step (a message refused for claiming its id is not one).
  const latest = ownSteps([...records].sort((a, b) => a.at.localeCompare(b.at))).at(-1);
  if (!latest) return { result: 'queued', reason: 'not yet picked up by the worker' };
  return { result: latest.result, rule: latest.rule, reason: latest.reason };
}

/** A request the caller sent: its SQS message id and whose request it is (`requestOwner`). */
export interface SentRequest {
  messageId: string;
  owner: RequestOwner;
}

export interface WaitOptions {
  timeoutMs: number;
  /** The request the caller sent (see `outcomeNow`). */
  mine?: SentRequest;
  pollMs?: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** Polls until the request ends or `timeoutMs` passes (then "held", with its latest state). */
export async function waitForOutcome(
  table: StateTable,
  requestId: string,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const deadline = options.now() + options.timeoutMs;
  for (;;) {
    const state = await outcomeNow(table, requestId, options.mine);
    if (state.exitCode !== undefined) return state as WaitOutcome;
    const left = deadline - options.now();
    if (left <= 0)
      return state.result === 'queued'
        ? { ...state, exitCode: WAIT_EXIT.held, reason: neverRecorded(requestId) }
        : { ...state, exitCode: WAIT_EXIT.held };
    await options.sleep(Math.min(options.pollMs ?? 2_000, left));
  }
}

/**
 * Why a request may still read "queued" at the timeout, and where to look. Besides a backed-up
 * queue, a worker that fails every attempt before it can record (a crash, its function's timeout)
 * leaves no audit record, and SQS moves the request to the DLQ unseen by this gate: its CI role
 * may only send to the queue and read the state table (README), not receive from the DLQ.
 */
function neverRecorded(requestId: string): string {
  return (
    'the worker has recorded nothing for it. The queue may be backed up, or every attempt failed before ' +
    'the worker could record it (a crash or a timeout) and SQS moved it to the dead-letter queue (a last ' +
    'attempt that died is recorded by the release tick a minute or two later, as given up or as its change made): an ' +
    `operator finds it with \`autopilot dlq list\` (request id ${requestId}), and its attempts in the ` +
    "worker's logs (saved query 'one request by id')"
  );
}
