/**
 * The SQS handler: runs the records of a batch concurrently (bounded), and reports the ones to
 * retry as `batchItemFailures` (the event source needs `reportBatchItemFailures: true`), so one
 * failing record never re-runs its neighbours. Own code rather than Powertools' BatchProcessor
 * and idempotency utility: this is ~40 lines; the idempotency we need is per effect (action +
 * target + phase, shared by different requests) and per request, not per payload; Powertools'
 * DynamoDB persistence relies on ReturnValuesOnConditionCheckFailure, which the local emulator
 * (dynalite) lacks. What Powertools would cost at cold start is measured by `npm run bench --
 * cold-start` (rows "Powertools worker (Logger, BatchProcessor, Idempotency, Metrics): …", from
 * bench/fixtures/powertools-worker-handler.ts), not claimed here.
 */
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { claimedRequestId } from '../actions/request.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { noMetrics } from '../observability/metrics.js';
import { decide as policyDecide } from '../policy/decide.js';
import { policyDigest } from '../policy/digest.js';
import { isLastReceive, MAX_RECEIVE_COUNT } from '../queue/redrive.js';
import { forEachBounded } from '../util/pool.js';
import { RetryLater } from './errors.js';
import { processRecord, type RecordDeps, type RecordResult } from './process-record.js';
import { type ReleaseDeps, type ReleaseSummary, releaseHeld } from './release.js';

export type WorkerDeps = Omit<
  RecordDeps,
  | 'logger'
  | 'metrics'
  | 'clock'
  | 'decide'
  | 'slack'
  | 'safetyMarginMs'
  | 'lockMarginMs'
  | 'maxReceiveCount'
  | 'policyDigest'
> &
  Partial<RecordDeps> & {
    /** Records processed at the same time within one invocation (default 5). */
    concurrency?: number;
    /** Used when no Lambda context is given (local loop): the invocation's time budget. */
    defaultTimeoutMs?: number;
  };

export type WorkerContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Context>;

export type WorkerHandler = (event: SQSEvent, context?: WorkerContext) => Promise<SQSBatchResponse>;

/**
 * The ids a failed record's line is found by: a proven request's own id, else the one the worker
 * gives the message, with the id the body claims beside it (an invalid body's, or one whose
 * requester is not proven, e.g. on the first receive after a key rotation: never the line's
 * `requestId`, or the line would join another request's story), as the dead-letter line writes them.
 */
function requestIdsOf(
  record: SQSRecord,
  proven: { requestId?: string },
): { requestId: string; claimedRequestId?: string } {
  if (proven.requestId) return { requestId: proven.requestId };
  const claimed = claimedRequestId(record.body);
  return { requestId: `sqs:${record.messageId}`, ...(claimed ? { claimedRequestId: claimed } : {}) };
}

/** The worker's deps with its defaults: the record path's, and the release tick's for a dead copy's stored end. */
function recordDepsOf(deps: WorkerDeps, logger: Logger): RecordDeps {
  return {
    ...deps,
    // The wiring hands the loaded file's digest; a worker built on a policy alone names it the same way.
    policyDigest: deps.policyDigest ?? policyDigest(deps.policy),
    logger,
    metrics: deps.metrics ?? noMetrics,
    clock: deps.clock ?? Date.now,
    decide: deps.decide ?? policyDecide,
    slack: deps.slack ?? { allowedOrigins: [] },
    safetyMarginMs: deps.safetyMarginMs ?? 3_000,
    lockMarginMs: deps.lockMarginMs ?? 15_000,
    maxReceiveCount: deps.maxReceiveCount ?? MAX_RECEIVE_COUNT,
  };
}

export function createWorker(deps: WorkerDeps): WorkerHandler {
  const logger: Logger = deps.logger ?? createLogger({ service: 'worker' });
  return workerOf(deps, recordDepsOf(deps, logger));
}

/** The SQS handler on deps already completed (the entry shares them with its release tick). */
function workerOf(deps: WorkerDeps, recordDeps: RecordDeps): WorkerHandler {
  const { logger } = recordDeps;
  const concurrency = deps.concurrency ?? 5;
  const defaultTimeoutMs = deps.defaultTimeoutMs ?? 60_000;

  return async (event, context) => {
    const { clock } = recordDeps;
    const startedAt = clock();
    const remainingMs = context
      ? () => context.getRemainingTimeInMillis()
      : () => defaultTimeoutMs - (clock() - startedAt);
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    const results: Partial<Record<RecordResult | 'retry', number>> = {};
    await forEachBounded(event.Records, concurrency, async (record) => {
      let result: RecordResult | 'retry';
      const proven: { requestId?: string } = {};
      try {
        result = await processRecord(recordDeps, record, { remainingMs }, proven);
      } catch (error) {
        result = 'retry';
        batchItemFailures.push({ itemIdentifier: record.messageId });
        const fields = { ...requestIdsOf(record, proven), messageId: record.messageId, error };
        // On its last receive SQS moves it to the DLQ rather than deliver it again.
        if (isLastReceive(record, recordDeps.maxReceiveCount))
          logger.error('record failed on its last receive; SQS moves it to the DLQ', fields);
        else if (error instanceof RetryLater) logger.info('record will be retried', fields);
        else logger.error('record failed; it will be retried', fields);
      }
      results[result] = (results[result] ?? 0) + 1;
    });
    logger.debug('batch done', { records: event.Records.length, results, ms: clock() - startedAt });
    return { batchItemFailures };
  };
}

/**
 * The worker function's entry: SQS batches from the queue, and the release tick's scheduled
 * event (an EventBridge rule every minute) that sends held requests whose wait is over back
 * to the queue. The tick runs here because the worker holds every signer's key, so a released
 * copy is vouched for exactly as the original was.
 */
export function createWorkerEntry(deps: WorkerDeps) {
  // One logger and one set of completed deps (the policy's digest taken once) for both entries.
  const logger: Logger = deps.logger ?? createLogger({ service: 'worker' });
  const recordDeps = recordDepsOf(deps, logger);
  const worker = workerOf(deps, recordDeps);
  const release = releaseHandler({ ...deps, logger, recordDeps });
  return (
    event: SQSEvent | Pick<ScheduledEvent, 'time'>,
    context?: WorkerContext,
  ): Promise<SQSBatchResponse | ReleaseSummary> =>
    'Records' in event ? worker(event, context) : release(event, context);
}

/**
 * The release tick as a handler. Its "now" is the later of the schedule's time (tests and the local
 * stack name one) and the worker's clock: a tick invoked late (held in Lambda's async queue by
 * throttling, up to the worker's max event age) keeps its event's older time, and a give-up it
 * recorded at that time took a copy of the request sent in between for a new attempt (ended-copy.ts),
 * and a reply URL past its life for a live one. Every deadline the tick checks (a mark's, a next
 * look, an expiry) is on the worker's clock too, so the later time is the right one for them: the
 * event's was later to pass them, never more right. The invocation's remaining time (its Lambda
 * context) bounds the tick: a large backlog is sent back over several ticks rather than cut by the timeout.
 */
export function releaseHandler(deps: ReleaseDeps & { clock?: () => number }) {
  return async (event: Pick<ScheduledEvent, 'time'>, context?: WorkerContext): Promise<ReleaseSummary> => {
    const scheduledMs = event?.time ? Date.parse(event.time) : Number.NaN;
    const clockMs = (deps.clock ?? Date.now)();
    const now = new Date(Number.isNaN(scheduledMs) ? clockMs : Math.max(scheduledMs, clockMs));
    // The heartbeat, before anything can fail: the ReleaseTickNotRunning alarm fires when none
    // comes (a tick that runs and fails is WorkerErrors' to count).
    deps.metrics?.put('ReleaseTicks', 1, {});
    let summary: ReleaseSummary;
    try {
      summary = await releaseHeld(deps, now, context ? () => context.getRemainingTimeInMillis() : undefined);
    } catch (error) {
      // The invocation fails (WorkerErrors counts it); this line is what the runbook's query finds.
      deps.logger.error('release tick failed', { error });
      throw error;
    }
    const { notReleased } = summary;
    // Only a tick that left work for the next sends it: an idle deployment sends no such line.
    // Before the failure below: a tick that failed some sends may have run out of time too.
    if (summary.behind > 0) deps.metrics?.put('ReleaseTickBehind', summary.behind, {});
    deps.logger[notReleased.length > 0 ? 'error' : 'info']('release tick', {
      held: summary.held,
      released: summary.released.length,
      notReleased: notReleased.length,
      left: summary.left,
      behind: summary.behind,
      bodiesRead: summary.bodiesRead,
      givenUp: summary.givenUp.length,
      endsTold: summary.endsTold.length,
      paused: summary.paused,
    });
    // A due request whose send failed stays held, retried by a later tick; but a cause that lasts
    // would hold it for good (a cancel or a resume never carried out) with no metric or alarm to
    // tell: the tick's invocation fails, after the others were sent, so WorkerErrors counts it.
    if (notReleased.length > 0)
      throw new Error(
        `release tick: ${notReleased.length} held request(s) due but not sent back: ${notReleased.slice(0, 10).join(', ')}`,
      );
    return summary;
  };
}
