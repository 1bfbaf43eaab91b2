/**
 * What an operator looks at: the alarms that page a person (each says what to do), one
 * dashboard laid out as an operator reads it (is automation acting? is it blocked? is it
 * healthy?) and saved Logs Insights queries. The application metrics come from EMF lines the
 * functions write (src/observability/metrics.ts); their names and dimensions are read from
 * that catalogue, so a renamed metric breaks the build here, not the dashboard in production.
 */
import { Aws, CfnOutput, Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarmAction,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';

import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IRule } from 'aws-cdk-lib/aws-events';
import {
  FilterPattern,
  type ILogGroup,
  MetricFilter,
  QueryDefinition,
  QueryString,
} from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC_CATALOGUE, METRICS_NAMESPACE, type MetricName } from '../src/observability/metrics.js';
import type { AutopilotFunction } from './autopilot-function.js';
import { sumOverOperations } from './table-metrics.js';

/** Alarm thresholds; each is a context value (README "Operations" lists them with their defaults). */
export interface AlarmThresholds {
  /** 429s from the Console API per 5 minutes, three periods in a row. @default 10 */
  throttledPer5Min: number;
  /** Console API attempts with no answer (timeouts, failed connections) per 5 minutes, two periods in a row. @default 5 */
  unreachablePer5Min: number;
  /** Console API attempts answered 5xx per 5 minutes, two periods in a row. @default 5 */
  serverErrorsPer5Min: number;
  /** Minutes the oldest message may wait in the actions queue. @default 30 */
  queueAgeMinutes: number;
  /** Sweeper periods it may fall behind the event log. @default 2 */
  sweeperLagPeriods: number;
  /** Hours the stale sweep may go without judging (as long as exposures may be logged late). @default 6 */
  staleNotJudgedHours: number;
  /** Requests the HTTP API's stage throttle answered 429 per 5 minutes. @default 1 */
  apiThrottledPer5Min: number;
}

export const DEFAULT_ALARM_THRESHOLDS: AlarmThresholds = {
  throttledPer5Min: 10,
  unreachablePer5Min: 5,
  serverErrorsPer5Min: 5,
  queueAgeMinutes: 30,
  sweeperLagPeriods: 2,
  staleNotJudgedHours: 6,
  apiThrottledPer5Min: 1,
};

export interface OperationsProps {
  functions: { webhook: AutopilotFunction; worker: AutopilotFunction; sweeper: AutopilotFunction };
  api: HttpApi;
  /** The API stage's access log (JSON lines with `status` and `apiId`): its 429s are counted from it. */
  apiAccessLogs: ILogGroup;
  /** The stage's throttle, as the WebhookThrottled alarm tells it. */
  apiThrottle: { rateLimit: number; burstLimit: number };
  actionsQueue: Queue;
  dlq: Queue;
  table: Table;
  alarmAction: IAlarmAction;
  sweepMinutes: number;
  /** Minutes between release ticks (the worker's schedule). */
  releaseTickMinutes: number;
  /** The release tick's rule: its firings show the stack is up (SweeperNotRunning). */
  releaseTickRule: IRule;
  thresholds: AlarmThresholds;
}

const FIVE_MINUTES = Duration.minutes(5);
type Service = 'webhook' | 'worker' | 'sweeper';

/** An application metric of one function, by the catalogue's name. */
function appMetric(name: MetricName, service: Service, statistic = 'Sum', label?: string): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { Service: service },
    statistic,
    period: FIVE_MINUTES,
    ...(label ? { label } : {}),
  });
}

/** Every series of a metric with its catalogued dimensions (e.g. Decisions by Action and Outcome). */
function searchOf(name: MetricName, service: Service, label: string): MathExpression {
  const dimensions = ['Service', ...METRIC_CATALOGUE[name].dimensions].join(',');
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${dimensions}} MetricName="${name}" Service="${service}"', 'Sum', 300)`,
    label,
    period: FIVE_MINUTES,
  });
}

/** The sum of one metric over the functions that emit it (a missing series counts as 0). */
function acrossServices(
  name: MetricName,
  services: Service[],
  label: string,
  period: Duration = FIVE_MINUTES,
): MathExpression {
  // Ids are unique per graph or alarm: the metric's name and the service.
  const idOf = (s: Service) => `${name.charAt(0).toLowerCase()}${name.slice(1)}_${s}`;
  const usingMetrics = Object.fromEntries(
    services.map((s) => [idOf(s), appMetric(name, s).with({ period })]),
  );
  return new MathExpression({
    expression: services.map((s) => `FILL(${idOf(s)}, 0)`).join(' + '),
    usingMetrics,
    label,
    period,
  });
}

export class Operations extends Construct {
  readonly dashboard: Dashboard;
  readonly alarms: Record<string, Alarm> = {};

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const { functions, actionsQueue, dlq, table, api, thresholds } = props;
    const { webhook, worker, sweeper } = functions;
    const all: Service[] = ['webhook', 'worker', 'sweeper'];

    const alarm = (
      name: string,
      description: string,
      metric: IMetric,
      settings: Partial<{
        threshold: number;
        evaluationPeriods: number;
        comparisonOperator: ComparisonOperator;
        treatMissingData: TreatMissingData;
      }> = {},
    ) => {
      const created = new Alarm(scope, name, {
        alarmDescription: description,
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...settings,
      });
      created.addAlarmAction(props.alarmAction);
      created.addOkAction(props.alarmAction);
      this.alarms[name] = created;
      return created;
    };

    // --- Alarms: each names the cause and what to do.
    alarm(
      'DeadLetterQueueNotEmpty',
      'Action requests reached the DLQ (invalid, requester not proven, dated in the future, or retries exhausted). Run `npx autopilot dlq list` to see each with its reason; fix the cause, then `npx autopilot dlq redrive --id <id>`; delete one that must never run (forged, or from another queue) with `npx autopilot dlq delete <id>`.',
      dlq.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      // SQS reports a queue's metrics only while it is active (a message sent or read in the last
      // six hours): messages left in a quiet DLQ stop being reported, and treated as not breaching
      // the alarm would go OK (and tell the topic) with them still there. It keeps its state; an
      // emptied DLQ, redriven or deleted from (both activity), is reported as 0 and clears it.
      { treatMissingData: TreatMissingData.IGNORE },
    );
    alarm(
      'ConsoleApiUnauthorized',
      'The Console API answered 401: the key was revoked, or rotated without updating the secret. Put a valid key in the secret (consoleApiKey in SecretArn, consoleReadOnlyApiKey in WebhookSecretArn and SweeperSecretArn); the functions re-read it at the next 401.',
      acrossServices('ConsoleApiUnauthorized', all, '401s'),
    );
    alarm(
      'ConsoleApiForbidden',
      'The Console API answered 403: the key is valid but not allowed the call (a read-only key in consoleApiKey, or a role lacking a permission, e.g. approving a phase that requires review). Retrying does not cure it. The saved query "slowest Console API calls" shows the refused method and path (status 403) and the Service; grant the key that permission, or put the right key in the secret (consoleApiKey in SecretArn for the worker, consoleReadOnlyApiKey in WebhookSecretArn and SweeperSecretArn). Each refused request ended as rejected with its requester told: ask for it again once fixed.',
      acrossServices('ConsoleApiForbidden', all, '403s'),
    );
    alarm(
      'ConsoleApiThrottled',
      `The Console API answered 429 at least ${thresholds.throttledPer5Min} times per 5 minutes for 15 minutes: another client spends the key's limits too. The worker's containers share one budget of the platform's limits and slow down on each 429, so nothing is lost (requests wait in the queue); check who else uses the key, and give console-autopilot a key of its own.`,
      acrossServices('ConsoleApiThrottled', all, '429s'),
      { threshold: thresholds.throttledPer5Min, evaluationPeriods: 3 },
    );
    alarm(
      'ConsoleApiUnreachable',
      `The Console API gave no answer (timeouts or failed connections) at least ${thresholds.unreachablePer5Min} times per 5 minutes for 10 minutes. Nothing is lost: mutations are retried through the queue and end in the DLQ if it lasts. Check the platform's status, then consoleApiBaseUrl and the functions' network path (VPC, proxy, DNS).`,
      acrossServices('ConsoleApiUnreachable', all, 'no answer'),
      { threshold: thresholds.unreachablePer5Min, evaluationPeriods: 2 },
    );
    alarm(
      'ConsoleApiServerErrors',
      `The Console API answered 5xx at least ${thresholds.serverErrorsPer5Min} times per 5 minutes for 10 minutes: the platform is failing. Nothing is lost: calls are retried, mutations through the queue, and a request that fails on every receive ends in the DLQ with its requester told. Check the platform's status; the saved query "slowest Console API calls" shows the failing method and path (status 5xx).`,
      acrossServices('ConsoleApiServerErrors', all, '5xx'),
      { threshold: thresholds.serverErrorsPer5Min, evaluationPeriods: 2 },
    );
    const lagSeconds = thresholds.sweeperLagPeriods * props.sweepMinutes * 60;
    alarm(
      'SweeperLagging',
      `The sweeper ended a run more than ${thresholds.sweeperLagPeriods} schedule periods (${lagSeconds / 60} minutes) behind the event log: event rules act late and stale configs are not judged. Check its summary log line (stop reason: time, max-pages, error) and SweeperErrors. Stopped for time: each run reads for at most 5 minutes, so a shorter sweepSchedule (5 minutes reads all the time) gives it more reading per hour.`,
      appMetric('SweeperLag', 'sweeper', 'Maximum'),
      // One figure per run, so most 5-minute periods have none: they keep the state (IGNORE) rather
      // than flip it to OK between two runs of a sweeper still behind. SweeperNotRunning sees no runs.
      {
        threshold: lagSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.IGNORE,
      },
    );
    // The late-exposure walk reads after the sweeper's, in what is left of each run: behind for
    // good, it keeps the stale sweep off while SweeperLag reads 0 and every run is merely partial.
    const notJudgedHours = thresholds.staleNotJudgedHours;
    alarm(
      'StaleSweepNotJudging',
      `The stale config sweep has not judged for more than ${notJudgedHours} hours: no stale config is found or archived. Each sweeper run's summary log line says why (stale.notJudged; stale.notJudgedSince: since when). "The event log is not read up to now yet": see SweeperLagging and SweeperErrors. "Exposures logged late are not read up to 6 hours ago yet" with the runs stopping for time: the late-exposure walk (which reads each event a second time, after the sweeper's own walk) gets too little of each run to keep up with the log; a shorter sweepSchedule gives it more reading per hour. Nothing is archived wrongly meanwhile: staleness is only judged from a log read far enough.`,
      appMetric('StaleJudgementAge', 'sweeper', 'Maximum'),
      // One figure per run, like SweeperLag: periods without a run keep the state.
      {
        threshold: notJudgedHours * 3600,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.IGNORE,
      },
    );
    // The sweeper's invocations alone, missing counting as "not run", paged on every fresh stack: it
    // has none until the schedule's first run, one period after the rule is created. Missing data
    // now counts as not breaching, and "not run" is read against the release tick rule's firings
    // (every minute, from the deploy on): a window of two periods breaches when the stack has been
    // up for at least one and a half periods of it (most of its ticks fired) and the sweeper ran
    // not once. A fresh stack is quiet until half a period after the sweeper's first chance to
    // run; a sweeper that never runs, or stops, pages as before. With no tick firing at all (the
    // tick rule disabled too), this alarm cannot see: ReleaseTickNotRunning pages for that.
    const sweepWindow = Duration.minutes(2 * props.sweepMinutes);
    const ticksNeeded = Math.ceil((1.5 * props.sweepMinutes) / props.releaseTickMinutes);
    alarm(
      'SweeperNotRunning',
      `The sweeper has not run for two periods (${2 * props.sweepMinutes} minutes) while the stack's schedules fire (the release tick's rule): check that the stack's SweepSchedule rule is enabled (EventBridge → Rules), then the sweeper's Throttles and AsyncEventsDropped. A stack just deployed is not counted until the sweeper has had its first chance to run. While ReleaseTickNotRunning is in alarm (no tick fires, e.g. both rules disabled), this alarm cannot see: check the sweeper's Invocations by hand.`,
      new MathExpression({
        expression: `IF(FILL(ticks, 0) >= ${ticksNeeded} AND FILL(runs, 0) == 0, 1, 0)`,
        usingMetrics: {
          runs: sweeper.function.metricInvocations({ period: sweepWindow, statistic: 'Sum' }),
          ticks: new Metric({
            namespace: 'AWS/Events',
            metricName: 'TriggeredRules',
            dimensionsMap: { RuleName: props.releaseTickRule.ruleName },
            statistic: 'Sum',
            period: sweepWindow,
          }),
        },
        label: 'stack up, sweeper not run',
        period: sweepWindow,
      }),
    );
    // The release tick's heartbeat (one ReleaseTicks line a tick): a disabled rule or dropped
    // invocations fail nothing, so no error alarm sees them. Five ticks per period, and two empty
    // periods in a row to page: a dropped tick, or a line read late from the log (only the latest
    // period still empty), never pages; a stop pages 10 to 15 minutes after the last tick.
    const tick = props.releaseTickMinutes;
    alarm(
      'ReleaseTickNotRunning',
      `No release tick has run for ${10 * tick} minutes (the worker writes one ReleaseTicks line per tick, every ${tick === 1 ? 'minute' : `${tick} minutes`}): held requests are not sent back (cancels, resumes, answered questions, waits that are over), though people were told "within a minute". Check that the stack's ReleaseTick rule is enabled (EventBridge → Rules), then the worker's Throttles and AsyncEventsDropped (a tick not started within 60 s is dropped, never retried: the queue's batches may use up the function's or the account's concurrency). Nothing is lost: held requests stay held (\`npx autopilot held\` lists them), and the first tick that runs sends back every one whose wait is over.`,
      appMetric('ReleaseTicks', 'worker').with({ period: Duration.minutes(5 * tick) }),
      {
        evaluationPeriods: 2,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
      },
    );
    // A tick out of time every minute still writes its heartbeat, so ReleaseTickNotRunning stays
    // quiet while cancels and resumes wait. One slow tick (a resume's backlog, Slack slow for a
    // minute) is left behind once and catches up: three 5-minute periods in a row with work left
    // are a tick that is not keeping up. Idle, or caught up, nothing is sent: not breaching.
    alarm(
      'ReleaseTickBehind',
      `Release ticks ran out of time (a tick starts nothing new with under 10 s of its invocation left) and left held items for the next tick in each of the last 3 periods of ${Math.max(5, tick)} minutes: a tick runs, so ReleaseTickNotRunning stays quiet, but it does not keep up. Due requests (cancels, resumes, answered questions, waits that are over) go back later than the minute people were told; stuck waits are not ended; paused, held records' expiry is not moved on (each still has about a week). Nothing is lost: what is left stays held and the next tick goes on, cancels first, then the oldest due. How many are left: the worker's warn line "release tick out of time" (saved query "release tick behind") gives left (due requests not sent back), stuckUnread (stuck waits not ended), keepLeft (records whose expiry was not moved on) and released (sent back by that tick); the dashboard's "held left for the next tick" line beside the release ticks; \`npx autopilot held\` lists what is held. Causes: a backlog after a long pause, or many waits ending at once: it catches up on its own, oldest first; check that left shrinks from tick to tick. Slack slow or failing (each stuck end posts to the requester and the channel, up to 5 s each): see SlackPostsFailing and the dashboard's Slack graph. The state table throttled or failing: the dashboard's "State table" graph (throttled requests, system errors). What to do: if left shrinks, nothing (the alarm clears once ticks keep up); if it stays or grows, fix the slow dependency (Slack's incoming webhook or channel, the table's capacity or throttling) and watch left fall; a send back that fails is WorkerErrors' to page (saved query "errors by function").`,
      appMetric('ReleaseTickBehind', 'worker').with({ period: Duration.minutes(Math.max(5, tick)) }),
      { evaluationPeriods: 3 },
    );
    alarm(
      'WebhookServerErrors',
      'The Slack webhook answered 5xx: people in Slack see failures. Run the saved query "errors by function" for the webhook; if it finds nothing, the function was throttled or failed to start (its Throttles metric, its init errors in the log group).',
      api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
    );
    // The stage's throttle answers 429 before the webhook runs: no EMF line, no 5xx, and an HTTP
    // API publishes no throttle metric (its 4xx mixes them with scanners' 404s and the webhook's
    // 401s). Counted from the access log, per API. Each is a slash command or a click Slack showed
    // as failed; ordinary chat use stays far below the limit, so by default one pages.
    const throttledApi = new MetricFilter(this, 'ApiThrottledRequests', {
      logGroup: props.apiAccessLogs,
      filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
      metricNamespace: `${METRICS_NAMESPACE}/Api`,
      metricName: 'ThrottledRequests',
      metricValue: '1',
      dimensions: { ApiId: '$.apiId' },
    });
    const { rateLimit, burstLimit } = props.apiThrottle;
    alarm(
      'WebhookThrottled',
      `The Slack webhook's HTTP API answered 429 (its stage throttle: ${rateLimit} requests a second, bursts of ${burstLimit}) ${thresholds.apiThrottledPer5Min === 1 ? 'at least once' : `at least ${thresholds.apiThrottledPer5Min} times`} in 5 minutes: those slash commands and button clicks never reached the webhook, and Slack showed each person a failure (nothing was queued or changed; they must try again). In Logs Insights over the API's access log group (ApiAccessLogs), \`filter status = "429" | stats count(*) by ip, route, bin(1m)\`: many from a few addresses that are not Slack's, or on routes Slack does not use, is a flood of unsigned posts using up the limit (nothing to change here: block it in front of the API, e.g. AWS WAF on a custom domain); Slack's own requests in a burst (many people, a busy channel) mean the limit is too low for your use: raise the stage's rateLimit and burstLimit (infra/autopilot-stack.ts, ApiStage) and redeploy.`,
      throttledApi.metric({
        dimensionsMap: { ApiId: api.apiId },
        statistic: 'Sum',
        period: FIVE_MINUTES,
      }),
      { threshold: thresholds.apiThrottledPer5Min },
    );
    // Each count is a request whose send failed after the SDK's own retries, answered "not queued,
    // try again", or was still running at the deadline, answered "not confirmed" (a hanging queue
    // ends a send begun late, after a cold start, that way). One is a blip (a dropped connection,
    // one throttled call) the person's next try gets past; three within 15 minutes are people's
    // tries failing again: a cause that lasts (the queue's policy or key, throttling, a network
    // path to SQS that hangs), and every chat-ops change fails until someone acts.
    alarm(
      'ActionsQueueUnreachable',
      'The Slack webhook could not put chat-ops requests on the actions queue, or SQS did not confirm them within the webhook\'s 2.5 s deadline, at least 3 times in 15 minutes. A person whose send failed was answered that it was not queued (outcome "queue_unreachable": nothing was changed); one whose send did not answer in time, that it was not confirmed (outcome "queue_unconfirmed": it may be queued, and trying again is safe). Every chat-ops change fails while this lasts; CI producers sending to the queue may fail too. In Logs Insights over the webhook\'s log group, `filter outcome in ["queue_unreachable", "queue_unconfirmed"] | fields @timestamp, outcome, requestId, error`: for queue_unreachable the error names the cause (AccessDenied: the queue policy, or the webhook role\'s sqs:SendMessage; throttling; a deleted queue, ACTIONS_QUEUE_URL; TimeoutError: SQS or the network path to it not answering); queue_unconfirmed alone means SQS is slow or hanging (the network path, SQS\'s health in the AWS Health Dashboard). Once fixed, people just try again.',
      appMetric('ActionsQueueUnreachable', 'webhook').with({ period: Duration.minutes(15) }),
      { threshold: 3 },
    );
    // The webhook could not sign chat-ops requests for the worker: its requester key's secret is
    // unreadable (a KMS key policy, a deleted secret, the role's read) or was not read by the
    // deadline. Answered 200, so nothing else shows it. One is a slow read on a cold start; two
    // within 15 minutes are people's tries failing again.
    alarm(
      'WebhookCannotSign',
      "The Slack webhook could not sign chat-ops requests for the worker at least 2 times in 15 minutes: its requester key (WEBHOOK_REQUESTER_KEY_SECRET_ID) could not be read, or not within the 2.5 s deadline. Each person was answered that it was not queued (nothing was changed), so every chat-ops change fails while this lasts. In Logs Insights over the webhook's log group, `filter outcome = \"signing_failed\" | fields @timestamp, requestId, error`: AccessDenied or KMS errors name the role's secretsmanager:GetSecretValue or the secret's key policy; ResourceNotFound a deleted secret (restore it, or redeploy the stack). Once fixed, people just try again.",
      appMetric('RequestsNotSigned', 'webhook').with({ period: Duration.minutes(15) }),
      { threshold: 2 },
    );
    // The webhook's own state: a pause or resume not written leaves automation running that a
    // person meant to stop (or stopped), answered 200 with an error, so nothing else shows it. One
    // is a blip the SDK's retries did not get past; two within 15 minutes are a try failing again.
    alarm(
      'WebhookStateUnreachable',
      'The Slack webhook could not read or write its state table at least 2 times in 15 minutes: a `pause` or `resume` was not written (automation may still run, or stay stopped, against what the person asked), a cancel, a denial or an answer by button not recorded, `status`, `held` or `why` not read. Each person was told it failed. First, if a pause was asked for: stop automation another way (README "Roll back": disable the worker\'s event source mapping and the schedule). In Logs Insights over the webhook\'s log group, `filter outcome in ["state_unreachable", "state_unconfirmed"] | fields @timestamp, command, requestId, error`: the error names the cause (AccessDenied: the webhook role\'s dynamodb grants or the table\'s key; ResourceNotFound: the table deleted or STATE_TABLE_NAME wrong; throttling: the table\'s ThrottledRequests on the dashboard); state_unconfirmed alone means DynamoDB or the path to it is slow. Once fixed, people just try again (a pause shows in `/autopilot status`).',
      appMetric('StateTableUnreachable', 'webhook').with({ period: Duration.minutes(15) }),
      { threshold: 2 },
    );
    // A wrong or mis-rotated signing secret answers every Slack request 401, and a 4xx pages
    // nothing else. The endpoint is public, so refused signatures alone would page on anyone
    // probing it: the alarm wants Slack-shaped requests refused (3, a person trying again) and not
    // one verified in the same 15 minutes. A quiet night has no data: not breaching, never a page.
    const signatures = Duration.minutes(15);
    alarm(
      'WebhookSigningSecretWrong',
      "The Slack webhook refused the signature of at least 3 Slack requests in 15 minutes and verified none: its Slack signing secret is not the Slack app's, so every slash command and button answers 401 and chat-ops is dead. Compare the webhook secret's slackSigningSecret (WebhookSecretArn in Secrets Manager; SLACK_SIGNING_SECRET locally) with the Slack app's Basic Information → Signing Secret: a recent rotation (Regenerate in Slack, or a new value put in the secret) not made on both sides is the usual cause, as is a secret copied from another Slack app or with whitespace. Put the app's value in the secret: the webhook re-reads it at the next refused signature, no redeploy. In Logs Insights over the webhook's log group, `filter outcome = \"signature_mismatch\" | fields @timestamp, route, reason` shows the refused requests; if they are not Slack's (someone forging Slack's headers), the secret is right and nothing is broken.",
      new MathExpression({
        expression: 'IF(FILL(rejected, 0) >= 3 AND FILL(verified, 0) == 0, 1, 0)',
        usingMetrics: {
          rejected: appMetric('SlackRequestsRejected', 'webhook').with({ period: signatures }),
          verified: appMetric('SlackRequestsVerified', 'webhook').with({ period: signatures }),
        },
        label: 'Slack requests refused, none verified',
        period: signatures,
      }),
    );
    // Slack posts are how outcomes, questions and notices reach people. A single failure is a blip
    // (Slack slow for a moment, a post cut by the invocation's end); three in an hour are posts
    // failing again and again, as with a revoked incoming webhook or an archived channel: an hour,
    // not minutes, because a quiet deployment posts a few times an hour, and every post then fails.
    alarm(
      'SlackPostsFailing',
      "At least 3 Slack posts in an hour were not delivered (replies, channel notices, questions with their buttons): Slack refused or did not answer them, or the sweeper had no channel to post its notices to. People are not told outcomes, and questions are not asked. In Logs Insights over the three log groups, `filter @message like /not delivered|cannot post|no notifications channel/ | fields @timestamp, @log, requestId, message, error, replyError, status, count`: the error and Slack's status name the cause. The sweeper's \"event notifications not posted: no notifications channel\" (count: the notices lost) means nothing was even sent: its secret's slackWebhookUrl (SweeperSecretArn) is empty, or the secret could not be read that run (the warn line before it has the error). 403 or 404 (invalid_token, no_service) or 410 (channel_is_archived) on the notifications channel: its incoming webhook was revoked or its channel archived; put a new URL in slackWebhookUrl (SecretArn for the worker, SweeperSecretArn for the sweeper). A reply to a request's own response_url that fails is that request's alone (Slack keeps one 30 minutes, 5 replies); its outcome is still in `/autopilot why <requestId>`.",
      acrossServices('SlackPostsFailed', all, 'Slack posts failed', Duration.hours(1)),
      { threshold: 3 },
    );
    alarm(
      'WorkerErrors',
      'Worker invocations failed as a whole: a release tick, a timeout or a failed start (a single failing record is retried and reaches the DLQ alarm instead). Run the saved query "errors by function".',
      worker.function.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
    );
    alarm(
      'SweeperErrors',
      'The sweeper failed a run (its progress up to the last page is saved). Run the saved query "errors by function" for the sweeper.',
      sweeper.function.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
    );
    alarm(
      'ActionsQueueBacklog',
      `The oldest action request has waited more than ${thresholds.queueAgeMinutes} minutes: the worker is not draining the queue (errors, throttles, or the budget). Check the worker's errors and the dashboard's "blocked" row.`,
      actionsQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      {
        threshold: thresholds.queueAgeMinutes * 60,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      },
    );

    // --- Dashboard: acting? blocked? healthy?
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(1),
    });
    const wide = { width: 12, height: 6 };
    const third = { width: 8, height: 6 };
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '## Is automation acting?\nDecisions by action and outcome, mutations sent, requests held, release ticks and what a tick left for the next.',
        width: 24,
        height: 1,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Decisions (worker)', left: [searchOf('Decisions', 'worker', '')], ...wide }),
      new GraphWidget({
        title: 'Mutations sent, requests held, release ticks, held left by a tick',
        left: [searchOf('MutationsSent', 'worker', '')],
        right: [
          searchOf('HeldRequests', 'worker', ''),
          appMetric('ReleaseTicks', 'worker', 'Sum', 'release ticks'),
          // Beside the heartbeat: a tick that runs but does not keep up (ReleaseTickBehind).
          appMetric('ReleaseTickBehind', 'worker', 'Maximum', 'held left for the next tick (max)'),
        ],
        ...wide,
      }),
    );
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '## Is it blocked?\nThe platform throttling or refusing us, the DLQ, the queue waiting, the sweeper behind.',
        width: 24,
        height: 1,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Console API 429s, 401s, 403s, 5xx, no answer, our deadline, budget waits',
        left: [
          acrossServices('ConsoleApiThrottled', all, '429s'),
          acrossServices('ConsoleApiUnauthorized', all, '401s'),
          acrossServices('ConsoleApiForbidden', all, '403s'),
          acrossServices('ConsoleApiServerErrors', all, '5xx'),
          acrossServices('ConsoleApiUnreachable', all, 'no answer'),
          acrossServices('ConsoleApiDeadlineCuts', all, 'cut by our deadline'),
        ],
        right: [appMetric('BudgetWaits', 'worker', 'SampleCount', 'budget waits')],
        ...third,
      }),
      new GraphWidget({
        title: 'Queues: DLQ depth, oldest request (s), DLQ sends by reason',
        left: [
          dlq.metricApproximateNumberOfMessagesVisible({
            period: FIVE_MINUTES,
            statistic: 'Maximum',
            label: 'DLQ depth',
          }),
          searchOf('DeadLettered', 'worker', ''),
        ],
        right: [
          actionsQueue.metricApproximateAgeOfOldestMessage({
            period: FIVE_MINUTES,
            statistic: 'Maximum',
            label: 'oldest request (s)',
          }),
        ],
        ...third,
      }),
      new GraphWidget({
        title: 'Sweeper: lag (s), stale sweep not judged for (s), events read, stale configs',
        left: [
          appMetric('SweeperLag', 'sweeper', 'Maximum', 'lag (s)'),
          appMetric('StaleJudgementAge', 'sweeper', 'Maximum', 'not judged for (s)'),
        ],
        right: [
          appMetric('EventsRead', 'sweeper', 'Sum', 'events read'),
          appMetric('StaleConfigsFound', 'sweeper', 'Maximum', 'stale found'),
          appMetric('StaleConfigsQueued', 'sweeper', 'Sum', 'stale queued'),
        ],
        ...third,
      }),
    );
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: '## Is it healthy?\nFunctions, the Console API, Slack, the table.',
        width: 24,
        height: 1,
      }),
    );
    const lambdaSeries = (pick: (f: AutopilotFunction) => IMetric) => [
      pick(webhook),
      pick(worker),
      pick(sweeper),
    ];
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Function errors and throttles',
        left: lambdaSeries((f) => f.function.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' })),
        right: lambdaSeries((f) => f.function.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' })),
        ...third,
      }),
      new GraphWidget({
        title: 'Function duration p99 (ms)',
        left: lambdaSeries((f) => f.function.metricDuration({ period: FIVE_MINUTES, statistic: 'p99' })),
        ...third,
      }),
      new GraphWidget({
        title: 'Console API latency p50 / p99 (ms)',
        left: all.flatMap((s) => [
          appMetric('ConsoleApiLatency', s, 'p50', `${s} p50`),
          appMetric('ConsoleApiLatency', s, 'p99', `${s} p99`),
        ]),
        ...third,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Slack posts failed, webhook 5xx, chat-ops requests not queued',
        left: [acrossServices('SlackPostsFailed', all, 'Slack posts failed')],
        right: [
          api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum', label: 'webhook 5xx' }),
          appMetric('ActionsQueueUnreachable', 'webhook', 'Sum', 'not queued or not confirmed'),
          appMetric('RequestsNotSigned', 'webhook', 'Sum', 'not signed'),
          appMetric('StateTableUnreachable', 'webhook', 'Sum', 'state table failed'),
          appMetric('SlackRequestsRejected', 'webhook', 'Sum', 'Slack signatures refused'),
          appMetric('SlackRequestsVerified', 'webhook', 'Sum', 'Slack signatures verified'),
        ],
        ...third,
      }),
      new GraphWidget({
        title: 'State table: throttled requests, capacity used',
        left: [
          // Per operation: DynamoDB publishes these two with TableName and Operation only.
          sumOverOperations(table, 'ThrottledRequests', { period: FIVE_MINUTES, label: 'throttled' }),
          sumOverOperations(table, 'SystemErrors', { period: FIVE_MINUTES, label: 'system errors' }),
        ],
        right: [
          table.metricConsumedReadCapacityUnits({ period: FIVE_MINUTES, label: 'read units' }),
          table.metricConsumedWriteCapacityUnits({ period: FIVE_MINUTES, label: 'write units' }),
        ],
        ...third,
      }),
      new AlarmStatusWidget({ title: 'Alarms', alarms: Object.values(this.alarms), ...third }),
    );

    // --- Saved Logs Insights queries over the three functions' log groups.
    const logGroups: ILogGroup[] = [webhook.logGroup, worker.logGroup, sweeper.logGroup];
    for (const [name, query] of Object.entries(SAVED_QUERIES)) {
      new QueryDefinition(this, name.replace(/\W+/g, '-'), {
        queryDefinitionName: `console-autopilot/${name}`,
        queryString: query,
        logGroups,
      });
    }

    new CfnOutput(scope, 'DashboardUrl', {
      value: `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards/dashboard/${this.dashboard.dashboardName}`,
      description: 'The operations dashboard',
    });
  }
}

/** The saved queries, by name (README "Operations" shows each). */
export const SAVED_QUERIES: Record<string, QueryString> = {
  'one request by id': new QueryString({
    // `claimedRequestId`: the id an invalid body carried (unproven), beside the worker's `sqs:` id.
    fields: [
      '@timestamp',
      'service',
      'Service',
      'level',
      'message',
      'result',
      'rule',
      'reason',
      'claimedRequestId',
    ],
    filterStatements: [
      'requestId = "REPLACE-WITH-REQUEST-ID" or claimedRequestId = "REPLACE-WITH-REQUEST-ID"',
    ],
    sort: '@timestamp asc',
  }),
  'denials by rule': new QueryString({
    filterStatements: ['result = "denied"'],
    statsStatements: ['count(*) as denials by rule'],
    sort: 'denials desc',
  }),
  // Our JSON lines at level error, and the runtime's own lines for what fails a whole invocation
  // (a timeout, an uncaught error, an init failure), which are plain text: grouped by log group.
  'errors by function': new QueryString({
    filterStatements: ['level = "error" or @message like /Task timed out|Invoke Error|Runtime\\.[A-Za-z]+/'],
    statsStatements: ['count(*) as errors, latest(@message) as last_line by @log'],
    sort: 'errors desc',
  }),
  // The ReleaseTickBehind alarm's: how much each tick left, so a backlog is seen to shrink or not.
  'release tick behind': new QueryString({
    fields: ['@timestamp', 'left', 'stuckUnread', 'keepLeft', 'released'],
    filterStatements: ['message like /release tick out of time/'],
    sort: '@timestamp desc',
    limit: 100,
  }),
  'slowest Console API calls': new QueryString({
    fields: ['@timestamp', 'Service', 'method', 'path', 'status', 'ConsoleApiLatency'],
    filterStatements: ['ispresent(ConsoleApiLatency)'],
    sort: 'ConsoleApiLatency desc',
    limit: 50,
  }),
};
