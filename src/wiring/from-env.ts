/**
 * The one place that turns a function's environment into what its handler needs, for the
 * webhook, the worker and the sweeper alike: the policy, the secrets (with rotation), the
 * Console API client, the state table, the actions queue, the requester signer and keys, the
 * logger and the Slack reply origins. Read once per container, at the edge; a missing variable
 * fails the cold start with its name, an invalid policy with its zod paths.
 *
 * Each function reads only the secrets it is given (src/secrets/secrets.ts): only the worker holds
 * the Console key that may mutate (the webhook and the sweeper read with a read-only one), and
 * only the webhook the Slack signing secret.
 */
import { appendFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createRequesterSigner, type RequesterSigner } from '../actions/proof.js';
import { ConfigError, integerEnv, logLevelEnv, optionalEnv, requireEnv } from '../config/env.js';
import { clockOf } from '../console/rate-limiter.js';
import { createLogger, type Logger, type LogSink } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import type { Policy } from '../policy/schema.js';
import { MAX_RECEIVE_COUNT, MAX_RECEIVE_COUNT_RANGE, MAX_RECEIVE_COUNT_VARIABLE } from '../queue/redrive.js';
import { secretsApart } from '../secrets/keys-apart.js';
import { previousKeysFromEnv } from '../secrets/previous-keys.js';
import {
  type FunctionRole,
  POLICY_WEBHOOK_URL_DEPRECATED,
  REQUESTER_KEYS_HELD,
  requesterKeyIdsFromEnv,
  requesterKeyVariable,
  type SecretField,
  type SecretsProvider,
} from '../secrets/secrets.js';
import { replyOriginsFromEnv } from '../slack/post.js';
import { readRequestAudit } from '../state/audit.js';
import { readPause, writePause } from '../state/pause.js';
import { markQueued, queuedAs } from '../state/queued.js';
import type { StateTable } from '../state/table.js';
import { writeVeto } from '../state/veto.js';
import type { SweeperDeps } from '../sweeper/types.js';
import { lazyClient } from '../util/lazy-client.js';
import type { WebhookDeps } from '../webhook/deps.js';
import { heldAccess } from '../webhook/held.js';
import type { WorkerDeps } from '../worker/worker.js';
import { awsClientConfig, sqsQueueDepth, webhookAwsAttempts } from './aws-clients.js';
import { sweeperEvents, webhookConsole, workerConsole } from './console-for.js';
import { mutationLimitsFromEnv, workerMutationBudget } from './mutation-budget.js';
import { policyWithDigest } from './policy-file.js';
import { RESPECT_REVIEW_SETTINGS_VARIABLE, respectReviewSettingsFromEnv } from './review-settings.js';
import { webhookReplies } from './webhook-replies.js';

export { consoleClientFor } from './console-for.js';

type Env = Record<string, string | undefined>;

export interface WiringOptions {
  /** The policy and its digest (default: taken of it), when the caller loaded it (CLI, tests); else `AUTOPILOT_POLICY`. */
  policy?: Policy;
  policyDigest?: string;
  logger?: Logger;
  /** EMF metrics; default one line per metric on stdout, as CloudWatch Logs reads them. */
  metrics?: Metrics;
  /**
   * Where the function's log and metric lines go, one JSON line each (unless `logger` or `metrics`
   * is given); default stdout, which Lambda sends to CloudWatch Logs. The local stack writes them to
   * `.local/logs/<function>.jsonl` (src/local/logs.ts).
   */
  sink?: LogSink;
  /**
   * Epoch ms, default `Date.now`: the one clock of every part (secrets cache, log and metric times,
   * deadlines, the budget, the sweeper's lease). Tests inject one.
   */
  clock?: () => number;
  /** In place of the function's own signer, whose keys are then not required (`sweep --dry-run`, which sends nothing). */
  signer?: RequesterSigner;
}

/** The credentials each function cannot work without (in its `AUTOPILOT_SECRET_ID` secret). */
const REQUIRED_SECRETS: Readonly<Record<FunctionRole, readonly (SecretField | readonly SecretField[])[]>> = {
  // Read-only keys; a full key where an operator put one (e.g. an older deployment's shared secret).
  webhook: ['slackSigningSecret', ['consoleReadOnlyApiKey', 'consoleApiKey']],
  worker: ['consoleApiKey'],
  sweeper: [['consoleReadOnlyApiKey', 'consoleApiKey']],
};

/** Reads and enqueues share one 2.5 s budget in the webhook; each attempt gets at most this much. */
const WEBHOOK_ATTEMPT_TIMEOUT_MS = 2_000;

/**
 * The local stack's copy of the metric lines (`AUTOPILOT_METRICS_FILE`), read by
 * `autopilot stats --local`; the lines also go where the function's lines go (`sink`, default
 * stdout as on Lambda). Never set on Lambda.
 */
function metricsFileSink(env: Env, sink: LogSink | undefined): { sink?: LogSink } {
  const file = optionalEnv('AUTOPILOT_METRICS_FILE', env);
  if (!file) return sink ? { sink } : {};
  const out = sink ?? ((line: string) => process.stdout.write(`${line}\n`));
  return {
    sink: (line) => {
      out(line);
      appendFileSync(file, `${line}\n`);
    },
  };
}

/** What every function is built from. */
interface Common {
  role: FunctionRole;
  policy: Policy;
  policyDigest: string;
  secrets: SecretsProvider;
  table: StateTable;
  sqs: Pick<SQSClient, 'send'>;
  queueUrl: string;
  signer: RequesterSigner;
  allowedOrigins: string[];
  logger: Logger;
  metrics: Metrics;
  /** The one clock of the function (WiringOptions.clock). */
  clock: () => number;
}

// No start without the requester keys a function holds. Once a secret is named (Lambda) they come
// from Secrets Manager only: a local `<SIGNER>_REQUESTER_KEY` beside it would pass, then fail all.
function requireRequesterKeys(role: FunctionRole, env: Env): void {
  const ids = requesterKeyIdsFromEnv(env, role);
  const onLambda = optionalEnv('AUTOPILOT_SECRET_ID', env) !== undefined || Object.keys(ids).length > 0;
  for (const signer of REQUESTER_KEYS_HELD[role]) {
    const [local, lambda] = [requesterKeyVariable(signer), requesterKeyVariable(signer, true)];
    if (ids[signer] || (!onLambda && optionalEnv(local, env))) continue;
    throw new ConfigError(
      onLambda
        ? `set ${lambda}: with AUTOPILOT_SECRET_ID or another *_SECRET_ID set, requester keys are read from Secrets Manager, never from ${local}`
        : `set ${lambda} (Lambda) or ${local} (local) to vouch for and check requesters`,
    );
  }
}

/** The notifications channel's URL, a credential kept in the secret (`slackWebhookUrl` / `SLACK_WEBHOOK_URL`). */
const channelUrlOf = (secrets: SecretsProvider) => async () =>
  (await secrets.get()).slackWebhookUrl || undefined;

/** The worker's and the sweeper's AWS calls: 1 s to connect, 3 s a request, the SDK's retries. */
const AWS_CALL_BOUNDS = {
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
};

function common(role: FunctionRole, env: Env, options: WiringOptions): Common {
  const { policy, policyDigest } = policyWithDigest(options, optionalEnv('AUTOPILOT_POLICY', env));
  if (!options.signer) requireRequesterKeys(role, env);
  const level = logLevelEnv(env);
  const clock = options.clock ?? Date.now;
  const sink = options.sink ? { sink: options.sink } : {};
  const logger =
    options.logger ?? createLogger({ service: role, now: clock, ...(level ? { level } : {}), ...sink });
  if (policy.notifications.slackWebhookUrl) logger.warn(POLICY_WEBHOOK_URL_DEPRECATED);
  // Every AWS call gives up on its own (without throwOnRequestTimeout the SDK's requestTimeout
  // only logs a warning): the webhook's before its 2.5 s answer to Slack; the worker's and the
  // sweeper's so that one hung call fails its record or run, not the whole invocation by timeout.
  const bounded =
    role === 'webhook'
      ? {
          maxAttempts: webhookAwsAttempts(env),
          requestHandler: { connectionTimeout: 500, requestTimeout: 1_000, throwOnRequestTimeout: true },
        }
      : AWS_CALL_BOUNDS;
  const secretsClient = { ...bounded, ...awsClientConfig(env, 'SECRETS_MANAGER') };
  const warn = (message: string) => logger.warn(message);
  // The webhook's requester key is read apart from its signing secret: src/secrets/keys-apart.ts.
  const { secrets, keys } = secretsApart(env, role, REQUIRED_SECRETS[role], clock, secretsClient, warn);
  // Built on the first call rather than at init (cold start; util/lazy-client). Endpoints come
  // from AWS_ENDPOINT_URL_SQS / _DYNAMODB in `env` when set (local stack, tests).
  const sqs = lazyClient(() => new SQSClient({ ...bounded, ...awsClientConfig(env, 'SQS') }));
  return {
    role,
    policy,
    policyDigest,
    secrets,
    table: {
      client: lazyClient(() => new DynamoDBClient({ ...bounded, ...awsClientConfig(env, 'DYNAMODB') })),
      tableName: requireEnv('STATE_TABLE_NAME', env),
    },
    sqs,
    queueUrl: requireEnv('ACTIONS_QUEUE_URL', env),
    signer: options.signer ?? createRequesterSigner(async () => (await keys.get()).requesterKeys ?? {}),
    allowedOrigins: replyOriginsFromEnv(optionalEnv('SLACK_REPLY_ORIGINS', env)),
    logger,
    metrics:
      options.metrics ?? createMetrics({ service: role, now: clock, ...metricsFileSink(env, options.sink) }),
    clock,
  };
}

export function webhookDepsFromEnv(env: Env = process.env, options: WiringOptions = {}): WebhookDeps {
  if (!optionalEnv('AUTOPILOT_SECRET_ID', env) && !optionalEnv('SLACK_SIGNING_SECRET', env)) {
    throw new ConfigError(
      'set AUTOPILOT_SECRET_ID (Lambda) or SLACK_SIGNING_SECRET (local) to verify Slack requests',
    );
  }
  const c = common('webhook', env, options);
  return {
    policy: c.policy,
    policyDigest: c.policyDigest,
    secrets: c.secrets,
    // The webhook never mutates the Console API (the worker does, within the budget). No client
    // logger: the request's own log line is the only one.
    console: webhookConsole(
      env,
      c.secrets,
      {
        timeoutMs: WEBHOOK_ATTEMPT_TIMEOUT_MS,
        maxRetries: 1,
        mutationBudget: false,
        clock: clockOf(c.clock),
      },
      c.metrics,
    ),
    sqs: c.sqs,
    queueUrl: c.queueUrl,
    signer: c.signer,
    pause: { read: () => readPause(c.table), write: (change) => writePause(c.table, change) },
    writeVeto: (key, veto, formerKey) => writeVeto(c.table, key, veto, formerKey),
    queued: {
      mark: (requestId, messageId, at) => markQueued(c.table, requestId, messageId, at),
      find: (requestId) => queuedAs(c.table, requestId),
    },
    ...webhookReplies(c.allowedOrigins, c.metrics),
    queueDepth: sqsQueueDepth(c.sqs, c.queueUrl),
    audit: { read: (requestId) => readRequestAudit(c.table, requestId) },
    held: heldAccess(c.table),
    logger: c.logger,
    metrics: c.metrics,
    now: c.clock,
  };
}

/** The worker's warning at start when its mutations bypass the platform's review settings. */
export const REVIEW_SETTINGS_BYPASSED = `${RESPECT_REVIEW_SETTINGS_VARIABLE}=false: the worker's mutations are sent without x-respect-review-settings, so the platform's review settings are bypassed (a phase that requires review may be approved without one)`;

export function workerDepsFromEnv(env: Env = process.env, options: WiringOptions = {}): WorkerDeps {
  const c = common('worker', env, options);
  const clock = c.clock;
  const consoleClock = clockOf(clock);
  const budget = workerMutationBudget(c.table, mutationLimitsFromEnv(env), consoleClock);
  // Said at every cold start: the operator chose it, but whoever reads the logs should not be surprised.
  if (!respectReviewSettingsFromEnv(env)) c.logger.warn(REVIEW_SETTINGS_BYPASSED);
  return {
    policy: c.policy,
    policyDigest: c.policyDigest,
    client: workerConsole(env, c.secrets, { mutationBudget: budget, clock: consoleClock }, c.metrics),
    clock,
    sqs: c.sqs,
    table: c.table,
    queueUrl: c.queueUrl,
    dlqUrl: requireEnv('DLQ_URL', env),
    // The queue's redrive policy, as the stack set it: a failure on that receive is told as given up.
    maxReceiveCount: integerEnv(MAX_RECEIVE_COUNT_VARIABLE, MAX_RECEIVE_COUNT, env, MAX_RECEIVE_COUNT_RANGE),
    logger: c.logger,
    metrics: c.metrics,
    slack: { allowedOrigins: c.allowedOrigins },
    requesterKeys: {
      get: async () => (await c.secrets.get()).requesterKeys ?? {},
      refresh: () => c.secrets.refresh(),
      rotates: c.secrets.rotates,
      ...(c.secrets.rotates ? { previous: previousKeysFromEnv(env, c.clock, AWS_CALL_BOUNDS).previous } : {}),
    },
    signer: c.signer,
    channelUrl: channelUrlOf(c.secrets),
  };
}

export function sweeperDepsFromEnv(env: Env = process.env, options: WiringOptions = {}): SweeperDeps {
  const c = common('sweeper', env, options);
  return {
    policy: c.policy,
    events: sweeperEvents(env, c.secrets, { clock: clockOf(c.clock) }, c.metrics),
    table: c.table,
    sqs: c.sqs,
    queueUrl: c.queueUrl,
    signer: c.signer,
    channelUrl: channelUrlOf(c.secrets),
    slackAllowedOrigins: c.allowedOrigins,
    logger: c.logger,
    metrics: c.metrics,
    // The largest page the API accepts; it applies less when it caps `limit`. A 0 is refused.
    pageSize: integerEnv('SWEEPER_PAGE_SIZE', 1000, env, { min: 1 }),
    clock: c.clock,
  };
}
