/**
 * Stuck waits: a held request whose sends never came back (src/state/held.ts, `isStuck`) is no
 * longer sent back by the release tick, so no worker ever sees it again. Whatever would end it in
 * the worker must then be done by the tick itself, or it sits in `held` until its record's own
 * clean-up with nobody told: a cancel (`/autopilot cancel` promised an ending within a minute), and
 * its expiry (`approvals.maxDeferHours`, which the worker would deny it by when it next saw it).
 */
import { type ActionRequest, effectKey } from '../actions/request.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { expiryWords, isDryRun, requestExpiresAt } from '../policy/decide.js';
import type { Policy } from '../policy/schema.js';
import { formatInstant } from '../policy/time-words.js';
import { postToSlack } from '../slack/post.js';
import { readEffect } from '../state/effects.js';
import { type HeldRecord, isStuck } from '../state/held.js';
import { readRequestState } from '../state/request-state.js';
import type { StateTable } from '../state/table.js';
import { answerPendingPastExpiry } from './answer-pending.js';
import { cancelReason } from './cancel.js';
import { endCancelledNow, endHeldNow, type Telling } from './cancel-now.js';
import { copyRecord, replayAsCopy } from './dead-end.js';
import { effectSubject, notificationsUrl, type RecordDeps } from './record.js';
import { mayHaveBeenDone } from './replies.js';

export interface StuckDeps {
  table: StateTable;
  logger: Logger;
  /** Where a stuck request the tick ends itself is told (the requester's reply URL, the channel). */
  slack?: { allowedOrigins: string[] };
  channelUrl?: () => Promise<string | undefined>;
  /** The worker's policy: the channel's URL still in it, and `maxDeferHours` (none: no expiry here). */
  policy?: Policy;
  /** A notice not delivered is counted (`SlackPostsFailed`), as the worker's replies are. */
  metrics?: Metrics;
  /** The actions queue's deployed `maxReceiveCount`: how long an answer's copy may still come. */
  maxReceiveCount?: number;
  /**
   * The worker's own deps (its entry hands them): a stored end is told as a copy of the request
   * replays it (dead-end.ts): a dead copy's, and a stuck wait's whose change was made.
   */
  recordDeps?: RecordDeps;
  /**
   * The worker's clock (epoch ms): what the tick records is stamped no earlier than it, as the tick
   * may run on well past its start.
   */
  clock?: () => number;
}

/** The requester and the channel, told as the worker tells them; a notice not delivered is counted. */
export function telling(deps: StuckDeps, requestId: string): Telling {
  const allowedOrigins = deps.slack?.allowedOrigins ?? [];
  return {
    tell: async (urls, message) => {
      for (const url of urls) {
        const posted = await postToSlack(url, message, { allowedOrigins });
        if (posted.ok) continue;
        deps.metrics?.put('SlackPostsFailed', 1, {}, { requestId });
        deps.logger.warn('reply not delivered', { requestId, error: posted.error });
      }
    },
    channelUrl: async () =>
      deps.policy ? notificationsUrl({ ...deps, policy: deps.policy }) : deps.channelUrl?.(),
    warn: (message, fields) => deps.logger.warn(message, fields),
  };
}

/**
 * A cancelled stuck wait, ended here as `autopilot held cancel` does. The cancel mark proves
 * nothing was sent for it since.
 */
export async function endStuckCancelled(deps: StuckDeps, held: HeldRecord[], now: Date): Promise<string[]> {
  const stuck = held.filter((record) => record.cancel && isStuck(record));
  const ended: string[] = [];
  for (const record of stuck) {
    const end = await endCancelledNow(
      deps.table,
      record,
      cancelReason(record.cancel!),
      now,
      telling(deps, record.requestId),
    );
    const as = { result: 'cancelled', rule: 'cancel' };
    if (endedHere(deps, record, end, 'stuck held request ended as cancelled', as))
      ended.push(record.requestId);
  }
  return ended;
}

/**
 * Logs how the tick's end of a stuck wait went; true when it is the request's end. Another tick at
 * the same time, a copy redriven from the DLQ or `autopilot cancel` may have recorded its end
 * first: that one was told by its writer, and this one is neither told nor reported as ended here.
 * An end recorded here is counted and logged as the worker's own end of it would be (finish.ts:
 * `Decisions`, `result` and `rule`), or the dashboard and the query "denials by rule" miss it.
 */
function endedHere(
  deps: StuckDeps,
  record: HeldRecord,
  end: Awaited<ReturnType<typeof endHeldNow>>,
  message: string,
  as: { result: string; rule: string },
  fields: Record<string, unknown> = {},
): boolean {
  const { requestId } = record;
  // Another pass's end, recorded and never told (its writer died): told here, so counted and
  // logged as told, with `retold` (an operator explaining a second post finds it by that).
  if (end.retold) {
    const told = end.ended
      ? as
      : { result: end.final?.result ?? as.result, rule: end.final?.rule ?? as.rule };
    deps.metrics?.put(
      'Decisions',
      1,
      { Action: record.action, Outcome: told.result },
      { requestId, rule: told.rule },
    );
    deps.logger.info(
      'stuck held request: told the end another pass recorded and never told (it died first)',
      {
        requestId,
        result: told.result,
        rule: told.rule,
        retold: true,
        ...fields,
      },
    );
  } else if (end.ended) {
    deps.metrics?.put(
      'Decisions',
      1,
      { Action: record.action, Outcome: as.result },
      { requestId, rule: as.rule },
    );
    deps.logger.info(message, { requestId, result: as.result, rule: as.rule, ...fields });
  } else if (end.executing)
    // Its last copy's approval is being made now (its call may be in flight): that copy tells the
    // outcome; should it die, its claim runs out and a later tick ends the wait.
    deps.logger.info(
      'stuck held request not ended here: a copy is making its change now; its outcome ends it',
      {
        requestId,
        ...fields,
      },
    );
  else
    deps.logger.info('stuck held request not ended here: another end was recorded first', {
      requestId,
      ...fields,
      ...(end.final ? { ended: end.final.result, endedRule: end.final.rule } : {}),
    });
  return end.ended;
}

/**
 * A stuck wait past its expiry, ended here as the worker would end it: denied by `maxDeferHours`
 * (a copy still in the DLQ replays that end if redriven). When an attempt for it may have reached
 * the platform (a copy crashed or timed out mid-call), it says the change may have been made.
 * Not while paused: the worker holds even an expired request then (the pause comes first). Nor
 * while a question's answer may still come (answer-pending.ts): its copy ends it. Nor when its
 * change was made (changeMade): that change's end is its end, as a copy of it would replay it.
 */
export async function endStuckExpired(
  deps: StuckDeps,
  held: HeldRecord[],
  now: Date,
  paused: boolean,
  remainingMs: () => number = () => Number.POSITIVE_INFINITY,
): Promise<string[]> {
  const { policy } = deps;
  if (!policy || paused) return [];
  const expired = held.filter(
    (record) =>
      !record.cancel &&
      isStuck(record) &&
      now.getTime() > expiresAt(policy, record.request) &&
      !answerPendingPastExpiry(record, policy, now, deps.maxReceiveCount),
  );
  const ended: string[] = [];
  for (const record of expired) {
    if (await beingCarriedOut(deps.table, record, now)) continue;
    const made = await changeMade(deps, record, now, remainingMs);
    if (made === 'told') ended.push(record.requestId);
    if (made) continue;
    const when = (instant: number) => formatInstant(instant, policy.timezone, now.getTime());
    const stuckFor = `it was stuck: sent back ${record.releases} times without coming back (see the DLQ)`;
    const ending = {
      result: 'denied' as const,
      rule: 'maxDeferHours',
      reason: `${expiryWords(policy, record.request, when)}; ${stuckFor}`,
      dryRun: isDryRun(policy, record.request),
      // Housekeeping, not a decision made from inputs (no worker saw the request): `policy replay`
      // counts it apart rather than as a record it cannot decide again.
      stuckExpired: true,
    };
    const mayHaveReached = record.reachedAt !== undefined || record.executingBy !== undefined;
    const end = await endHeldNow(
      deps.table,
      record,
      mayHaveReached ? mayHaveBeenDone(ending) : ending,
      now,
      telling(deps, record.requestId),
    );
    // Cancelled since the listing: that cancel is its end (this one was refused), ended here now.
    if (!end.ended && end.cancelled) {
      ended.push(...(await endStuckCancelled(deps, [{ ...record, cancel: end.cancelled }], now)));
      continue;
    }
    const fields = { effectKey: effectKey(record.request) };
    if (endedHere(deps, record, end, 'stuck held request ended as expired', ending, fields))
      ended.push(record.requestId);
  }
  return ended;
}

/**
 * A wait is stuck from its third send on, while that copy may still come back: one a worker
 * approved before the expiry and is carrying out now (the effect's live claim is the one marked on
 * the held item) is left to it, which tells the true outcome (the change made, or not). Ended here
 * it would be told denied too, and its final would say denied for a change made. Should that copy
 * crash, its lock expires and a later tick ends the wait.
 */
async function beingCarriedOut(table: StateTable, record: HeldRecord, now: Date): Promise<boolean> {
  if (record.executingBy === undefined) return false;
  const claim = await readEffect(table, effectKey(record.request), now.getTime());
  return claim.status === 'in-progress' && claim.owner === record.executingBy;
}

/**
 * The change the wait asks for was made (its effect completed) and no final says how the request
 * ended: by a copy of it that died before writing its final (a timeout right after the Console
 * API answered), or by another request for the same change. A copy of it would replay that
 * change's end (process-record.ts: the effect is read before any decision), never deny it as
 * expired; so does the tick, with the worker's replay (dead-end.ts): its own change told as at
 * first, the channel too; another request's as "done by request X" (refused once cancelled). Denied
 * here, the requester, the channel and a CI gate heard "denied" for a phase approved on the
 * platform. `told` when told here; `left` when it could not be (a later tick, or the copy, tells).
 * A final already there is told by endHeldNow (untold, as stored), so none is looked for here.
 */
async function changeMade(
  deps: StuckDeps,
  record: HeldRecord,
  now: Date,
  remainingMs: () => number,
): Promise<'told' | 'left' | undefined> {
  const request = { ...record.request, requestId: record.requestId };
  const key = effectKey(request);
  const state = await readRequestState(deps.table, effectSubject(request, key), now.getTime());
  if (state.final || state.effect.status !== 'completed') return undefined;
  const end = state.effect.outcome;
  const log: Logger = deps.logger.child({ requestId: record.requestId, effectKey: key });
  const madeBy = end.requestId === record.requestId ? {} : { madeBy: end.requestId };
  if (!deps.recordDeps) {
    // A tick built without the worker's deps (a test calling it directly): left, never denied.
    log.info(
      'stuck held request not ended here: its change was made; a tick with the worker tells it',
      madeBy,
    );
    return 'left';
  }
  // No message: the tick's end of a stuck wait names none, as its other ends of one.
  const body = JSON.stringify(request);
  const copy = {
    messageId: '',
    receiptHandle: '',
    receives: 0,
    sentAtMs: now.getTime(),
    receivedAtMs: now.getTime(),
  };
  try {
    const look = { request, state, now, remainingMs, log };
    const result = await replayAsCopy(deps.recordDeps, copyRecord(body, copy), key, end, look);
    log.info('stuck held request past its expiry ended by its change made: told as a copy replays it', {
      result,
      ...madeBy,
    });
    return 'told';
  } catch (error) {
    // Another copy telling it now (its claim held), or a failure: the next tick looks again.
    log.warn('stuck held request whose change was made not told: the next tick does', { error, ...madeBy });
    return 'left';
  }
}

const expiresAt = (policy: Policy, request: ActionRequest) => requestExpiresAt(policy, request).getTime();
