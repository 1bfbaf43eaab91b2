/**
 * CloudWatch metrics as Embedded Metric Format (EMF) log lines: CloudWatch Logs extracts the
 * metrics from the function's own output, so no `PutMetricData` call sits on the hot path and
 * a metric costs one short line. Each line carries one metric with its dimensions, always led
 * by `Service` (webhook, worker, sweeper), and properties that are not dimensions (the request
 * id, so one request's lines are found together without a dimension per request).
 *
 * Written by hand rather than with Powertools Metrics: it is one function of ~40 lines, and
 * the dimension sets here are fixed per metric (the catalogue below), which is what the
 * dashboard and alarms in `infra/` read. The cost of Powertools Metrics alone is measured by
 * `npm run bench -- metrics` (section "Metrics: EMF by hand vs Powertools Metrics"; README
 * "Operations" gives its figures), that of a Powertools worker with Logger, BatchProcessor and
 * Idempotency too by `npm run bench -- cold-start` (rows "Powertools worker (Logger,
 * BatchProcessor, Idempotency, Metrics): …").
 */
import type { ApiObservation } from '../console/call.js';

export const METRICS_NAMESPACE = 'ConsoleAutopilot';

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

/** Every metric, its unit and its dimensions besides `Service`: one home for emitters, dashboard and alarms. */
export const METRIC_CATALOGUE = {
  /** Each decision or outcome of an action request, e.g. Action=approve_phase, Outcome=approved (or retries-exhausted: given up). */
  Decisions: { unit: 'Count', dimensions: ['Action', 'Outcome'] },
  /** Console API mutations the worker sent and the platform answered (done, stale or refused). */
  MutationsSent: { unit: 'Count', dimensions: ['Action'] },
  /**
   * Requests that began to wait, once per holding (not again at each look the release tick sends
   * it back for, nor per retried copy): Why = paused, window, limit or ask, why it began.
   */
  HeldRequests: { unit: 'Count', dimensions: ['Why'] },
  /** Messages moved to the DLQ: Reason = invalid, not-proven, future-dated, or retries-exhausted (SQS moves it after its last receive). */
  DeadLettered: { unit: 'Count', dimensions: ['Reason'] },
  /** Console API answers: latency of each attempt, in ms (CloudWatch computes p50/p99 from the raw values). */
  ConsoleApiLatency: { unit: 'Milliseconds', dimensions: [] },
  /** 429s from the Console API (each attempt that got one). */
  ConsoleApiThrottled: { unit: 'Count', dimensions: [] },
  /** 401s from the Console API with the key re-read from the secret: the key is revoked, or rotated wrongly. */
  ConsoleApiUnauthorized: { unit: 'Count', dimensions: [] },
  /** 403s from the Console API: the key is known but not allowed this call (read-only, or its role lacks a permission). */
  ConsoleApiForbidden: { unit: 'Count', dimensions: [] },
  /** Console API attempts with no answer: timed out, or the connection failed (not our own aborts or deadlines). */
  ConsoleApiUnreachable: { unit: 'Count', dimensions: [] },
  /** Console API attempts cut short by the caller's deadline (the invocation's remaining time): our time ran out. */
  ConsoleApiDeadlineCuts: { unit: 'Count', dimensions: [] },
  /** Console API attempts answered 5xx: the platform failing (retried, and through the queue). */
  ConsoleApiServerErrors: { unit: 'Count', dimensions: [] },
  /** Mutations that had to wait for the budget, and how long (ms). */
  BudgetWaits: { unit: 'Milliseconds', dimensions: [] },
  /**
   * One per release tick, as it starts (the worker, every minute): its heartbeat. Nothing else
   * shows a tick that never runs (its rule disabled, its invocations dropped): no error is counted.
   */
  ReleaseTicks: { unit: 'Count', dimensions: [] },
  /**
   * Held items a release tick left for the next one for want of time (due requests, stuck waits
   * not ended, records not kept alive through a pause), only when some were: a tick that runs out
   * of time every minute still writes its heartbeat, so only this shows the backlog not draining.
   */
  ReleaseTickBehind: { unit: 'Count', dimensions: [] },
  /**
   * Chat-ops requests the webhook could not put on the actions queue: SQS refused or failed the
   * send (`queue_unreachable`; the person was answered "not queued"), or did not answer by the
   * deadline (`queue_unconfirmed`; answered "not confirmed": it may be queued). The outcome is a
   * property. Not the ones it could not sign (RequestsNotSigned).
   */
  ActionsQueueUnreachable: { unit: 'Count', dimensions: [] },
  /**
   * Chat-ops requests the webhook could not sign for the worker (`signing_failed`: its requester
   * key's secret unreadable or not read by the deadline; the person was answered "not queued").
   * Answered 200, so only this count shows that every chat-ops change is failing.
   */
  RequestsNotSigned: { unit: 'Count', dimensions: [] },
  /**
   * Webhook requests whose read or write of the state table failed (`state_unreachable`) or was
   * not confirmed by the deadline (`state_unconfirmed`): a `pause`/`resume`, a cancel, a denial or an
   * answer by button, `status`, `held`, `why`. Answered 200 with an error, so only this count shows it.
   */
  StateTableUnreachable: { unit: 'Count', dimensions: [] },
  /** Slack requests whose signature the webhook verified (with the secret as read, or re-read). */
  SlackRequestsVerified: { unit: 'Count', dimensions: [] },
  /**
   * Slack-shaped requests (both headers, a fresh timestamp, a v0 signature) whose signature did not
   * match, even with the secret re-read: what every request gets under a wrong signing secret.
   * Not requests without Slack's headers or with a stale timestamp (scanners, replays).
   */
  SlackRequestsRejected: { unit: 'Count', dimensions: [] },
  /** Slack posts (replies, channel notices, questions) that could not be delivered. */
  SlackPostsFailed: { unit: 'Count', dimensions: [] },
  /** Events the sweeper read in a run. */
  EventsRead: { unit: 'Count', dimensions: [] },
  /** How far the sweeper is behind the event log at the end of a run (0 when it read up to now). */
  SweeperLag: { unit: 'Seconds', dimensions: [] },
  /** Age of the newest event read so far at the end of a run (a quiet log makes it grow). */
  NewestEventAge: { unit: 'Seconds', dimensions: [] },
  /**
   * How long the stale sweep has gone without judging, at the end of each run: 0 when the run
   * judged (or there is no `staleConfigs`), else since the last run that did (or the first that could not).
   */
  StaleJudgementAge: { unit: 'Seconds', dimensions: [] },
  StaleConfigsFound: { unit: 'Count', dimensions: [] },
  StaleConfigsQueued: { unit: 'Count', dimensions: [] },
} as const satisfies Record<string, { unit: MetricUnit; dimensions: readonly string[] }>;

export type MetricName = keyof typeof METRIC_CATALOGUE;
type DimensionsOf<N extends MetricName> = (typeof METRIC_CATALOGUE)[N]['dimensions'][number];

export interface Metrics {
  /**
   * One EMF line: `value` of metric `name` with its catalogued dimensions, and `properties`
   * (searchable in Logs Insights, not dimensions), e.g. `{ requestId }`.
   */
  put<N extends MetricName>(
    name: N,
    value: number,
    dimensions: Record<DimensionsOf<N>, string>,
    properties?: Record<string, unknown>,
  ): void;
}

export interface MetricsOptions {
  service: string;
  /** Where lines go; default stdout (Lambda sends it to CloudWatch Logs). */
  sink?: (line: string) => void;
  /** Epoch ms of each line; inject the clock the caller runs on. */
  now?: () => number;
}

export function createMetrics(options: MetricsOptions): Metrics {
  const sink = options.sink ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  return {
    put(name, value, dimensions, properties = {}) {
      const { unit } = METRIC_CATALOGUE[name];
      const names = ['Service', ...Object.keys(dimensions)];
      sink(
        JSON.stringify({
          ...properties,
          _aws: {
            Timestamp: Math.round(now()),
            CloudWatchMetrics: [
              { Namespace: METRICS_NAMESPACE, Dimensions: [names], Metrics: [{ Name: name, Unit: unit }] },
            ],
          },
          Service: options.service,
          ...dimensions,
          [name]: value,
        }),
      );
    },
  };
}

/** For callers that do not measure (tests that do not look, tools). */
export const noMetrics: Metrics = { put: () => {} };

/** The Console API client's observations as metrics: latency, 429s, 401s, 403s, 5xx, no answer, deadline cuts, budget waits. */
export function consoleApiMetrics(metrics: Metrics) {
  return (observation: ApiObservation): void => {
    if (observation.kind === 'budget-wait') {
      metrics.put('BudgetWaits', observation.ms, {});
      return;
    }
    if (observation.kind === 'failure') {
      // An abort is the caller's own choice; a timeout or a failed connection is the platform's
      // silence. A deadline cut is our Lambda running out of time: counted apart, or the
      // ConsoleApiUnreachable alarm would send on-call to the platform's status page for it.
      const { method, error } = observation;
      if (error === 'deadline') metrics.put('ConsoleApiDeadlineCuts', 1, {}, { method });
      else if (error !== 'abort') metrics.put('ConsoleApiUnreachable', 1, {}, { method, error });
      return;
    }
    // Method, path and status as properties: the saved query "slowest Console API calls" shows them.
    const { method, path, status } = observation;
    metrics.put('ConsoleApiLatency', Math.round(observation.ms * 10) / 10, {}, { method, path, status });
    if (observation.status === 429) metrics.put('ConsoleApiThrottled', 1, {});
    if (observation.status >= 500) metrics.put('ConsoleApiServerErrors', 1, {}, { method, path, status });
    // A 401 the re-read key cures is a rotation done right (README: new key in, then the old
    // revoked), not a key to fix: the alarm would page for it. The re-read key's 401 counts.
    if (observation.status === 401 && !observation.keyReread) metrics.put('ConsoleApiUnauthorized', 1, {});
    // A 403 is no more cured by retrying than a refused key: someone must grant the permission
    // (or give the worker its read-write key). Counted apart from 401 so the alarm says which.
    if (observation.status === 403) metrics.put('ConsoleApiForbidden', 1, {}, { method, path, status });
  };
}
