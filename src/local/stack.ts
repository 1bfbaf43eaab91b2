/**
 * The local stack, in-process: Console API sandbox (unless a base URL is given), fauxqs +
 * dynalite, the Slack receiver, the handlers' environment, the webhook on a port, the worker
 * behind an emulated SQS event source mapping and the sweeper on a schedule. `npm start`
 * wraps this with a banner; tests boot it directly and stop it in afterAll.
 *
 * Each function is built as its Lambda entry point builds it (the same factories and the same
 * wiring), from an environment of its own: the process's environment is read, never changed, so
 * one process can hold several stacks. Tests that need an injected clock pass handlers built from
 * the factories instead.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { PLATFORM_MUTATION_LIMITS } from '../console/platform-limits.js';
import type { Logger } from '../observability/logger.js';
import type { Policy } from '../policy/schema.js';
import { MAX_RECEIVE_COUNT, MAX_RECEIVE_COUNT_VARIABLE } from '../queue/redrive.js';
import { DEFAULT_API_KEY, type Sandbox, type SandboxOptions, startSandbox } from '../sandbox/index.js';
import { sweeperHandler } from '../sweeper/handler.js';
import { createSweeper } from '../sweeper/sweeper.js';
import { createWebhookApp } from '../webhook/app.js';
import { sweeperDepsFromEnv, webhookDepsFromEnv, workerDepsFromEnv } from '../wiring/from-env.js';
import { loadPolicyFile } from '../wiring/policy-file.js';
import {
  RESPECT_REVIEW_SETTINGS_DEFAULT,
  RESPECT_REVIEW_SETTINGS_VARIABLE,
} from '../wiring/review-settings.js';
import { createWorker, createWorkerEntry } from '../worker/worker.js';
import { type EmulatorOptions, type Emulators, startEmulators } from './emulators.js';
import { assertNoStackRunning, type Endpoints, REPO_ROOT } from './endpoints.js';
import {
  createEventSource,
  type EventSource,
  type EventSourceOptions,
  type SqsHandler,
} from './event-source.js';
import { scheduledEvent } from './events.js';
import { type FetchApp, type ServedApp, serveApp } from './http.js';
import { createLambdaContext } from './lambda-context.js';
import type { LocalLogs } from './logs.js';
import { LOCAL_SIGNING_SECRET } from './sign.js';
import { type SlackReceiver, type SlackReceiverOptions, startSlackReceiver } from './slack-receiver.js';
import { localRequesterKeys } from './vouch.js';

export const SANDBOX_API_KEY = DEFAULT_API_KEY;
/** The embedded sandbox's read-only key, which the webhook reads with, as deployed. */
export const SANDBOX_READ_ONLY_API_KEY = 'sandbox-read-only-key';
export type { Endpoints };
export { LOCAL_SIGNING_SECRET };

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface LocalStackOptions {
  /** Webhook port (0 = any free port). */
  port?: number;
  /** Slack receiver port (0 = any free port). */
  receiverPort?: number;
  /** Use this Console API instead of the embedded sandbox. */
  consoleApiBaseUrl?: string;
  /** The key for `consoleApiBaseUrl` (required with it); the embedded sandbox uses its own. */
  consoleApiKey?: string;
  /** Options for the embedded sandbox (`createSandbox`'s: seed, now, faults, rateLimits...). */
  sandbox?: SandboxOptions;
  signingSecret?: string;
  /** The user's policy file (default `AUTOPILOT_POLICY` or `policy.json`). */
  policyPath?: string;
  /** Post the channel's notifications to the Slack receiver (`SLACK_WEBHOOK_URL`) (default true). */
  notifyReceiver?: boolean;
  /** Where `endpoints.json` goes (default `<repo>/.local`). */
  stateDir?: string;
  writeEndpointsFile?: boolean;
  /** Where the functions' metric lines are kept for `autopilot stats --local` (default `<stateDir>/metrics.jsonl` with the endpoints file). */
  metricsFile?: string;
  /**
   * Where the functions' JSON lines (logs and metrics) go, and what the terminal shows of them
   * (`npm start`: `.local/logs/<function>.jsonl`, warn and error lines in short). Emptied at boot,
   * once no running stack owns them. Default: every line to stdout, as on Lambda.
   */
  logs?: LocalLogs;
  /** Seconds between sweeps; false: no schedule (call `runSweeper()`). */
  sweepIntervalSeconds?: number | false;
  firstSweepDelayMs?: number;
  queue?: Pick<EmulatorOptions, 'visibilityTimeoutSeconds' | 'maxReceiveCount'>;
  worker?: Partial<
    Pick<EventSourceOptions, 'batchSize' | 'waitTimeSeconds' | 'concurrency' | 'timeoutMs' | 'onBatch'>
  > & {
    /** Use this handler instead of `functions/worker.ts` (tests with an injected clock, chaos). */
    handler?: SqsHandler;
    /** Like `handler`, built once the environment is set (factories that read it). */
    createHandler?: (stack: StackContext) => SqsHandler | Promise<SqsHandler>;
    /** Start polling at boot (default true). */
    autoStart?: boolean;
  };
  sweeper?: {
    handler?: ScheduledHandler;
    createHandler?: (stack: StackContext) => ScheduledHandler | Promise<ScheduledHandler>;
    timeoutMs?: number;
  };
  /**
   * The release tick (held requests whose wait is over go back to the queue): the worker's entry
   * invoked with a scheduled event, as the stack's one-minute EventBridge rule does.
   */
  release?: {
    handler?: ScheduledHandler;
    createHandler?: (stack: StackContext) => ScheduledHandler | Promise<ScheduledHandler>;
    /** Seconds between ticks (default 60, as deployed); false: no timer (call `runRelease()`). */
    intervalSeconds?: number | false;
  };
  webhook?: { app?: FetchApp; createApp?: (stack: StackContext) => FetchApp | Promise<FetchApp> };
  /** Extra environment for the handlers. */
  env?: Record<string, string>;
  receiver?: Pick<SlackReceiverOptions, 'print' | 'keep'>;
  logger?: Logger;
}

/** What a `create*` option gets: the parts that exist when handlers are built. */
export interface StackContext {
  env: Record<string, string>;
  policyPath: string;
  emulators: Emulators;
  receiver: SlackReceiver;
  sandbox?: Sandbox;
}

export interface LocalStack {
  endpoints: Endpoints;
  /** The environment the handlers run with (secrets included: never print it). */
  env: Record<string, string>;
  signingSecret: string;
  policyPath: string;
  /** True when the channel's notifications go to the Slack receiver. */
  notifyReceiver: boolean;
  emulators: Emulators;
  receiver: SlackReceiver;
  /** The embedded sandbox (`Sandbox` of src/sandbox), when it runs. */
  sandbox?: Sandbox;
  /** Where the functions' lines go, when not to stdout (`LocalStackOptions.logs`). */
  logs?: LocalLogs;
  eventSource: EventSource;
  /** Which parts run here; the Console API is 'external' when a base URL was given. */
  components: { sandbox: 'running' | 'external'; webhook: 'running'; worker: 'running'; sweeper: 'running' };
  runSweeper(at?: Date): Promise<unknown>;
  /** One release tick now (or as if at `at`). */
  runRelease(at?: Date): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * The longest timer Node keeps, in whole seconds: past 2^31 - 1 ms `setInterval` warns and fires
 * every 1 ms instead, so a long sweep interval would run the sweeper back to back.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A schedule Node cannot keep is refused before anything starts, not turned into a busy loop. */
function checkInterval(what: string, seconds: number | false | undefined): void {
  if (seconds === undefined || seconds === false) return;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_TIMER_SECONDS) {
    throw new RangeError(
      `${what} must be a whole number of seconds from 0 to ${MAX_TIMER_SECONDS}, got ${seconds}`,
    );
  }
}

export async function bootLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  checkInterval('sweepIntervalSeconds', options.sweepIntervalSeconds);
  checkInterval('release.intervalSeconds', options.release?.intervalSeconds);
  const log = options.logger;
  const stateDir = options.stateDir ?? resolve(REPO_ROOT, '.local');
  const closers: Closers = [];
  const stopAll = () => closeInReverse(closers, log);
  // Before anything starts or is written: the state directory may be a running stack's.
  await assertNoStackRunning(endpointsFileOf(options, stateDir));
  options.logs?.open();

  try {
    // 1. Console API: the caller's, or the embedded sandbox.
    const consoleApi = await startConsoleApi(options, closers);
    const { sandbox } = consoleApi;

    // 2. Queue, DLQ and state table.
    const emulators = await startEmulators(options.queue ?? {});
    closers.push(() => emulators.stop());

    // 3. What the worker would post to Slack.
    const receiver = await startSlackReceiver({
      ...(options.receiverPort !== undefined ? { port: options.receiverPort } : {}),
      ...options.receiver,
    });
    closers.push(() => receiver.close());

    // 4. The policy, validated before anything starts; the channel's URL is a secret, like deployed:
    // it points at the receiver unless the policy still names one (deprecated) or the caller set it.
    const policyPath = resolve(
      options.policyPath ?? process.env.AUTOPILOT_POLICY ?? resolve(REPO_ROOT, 'policy.json'),
    );
    const policy = loadPolicyFile(policyPath);
    const notifyReceiver = (options.notifyReceiver ?? true) && !policy.notifications.slackWebhookUrl;

    // 5. The functions' environment.
    const signingSecret = options.signingSecret ?? LOCAL_SIGNING_SECRET;
    // Defaults mirror the deployed event source (infra/): batches of 5, maxConcurrency 2, 60 s timeout.
    const concurrency = Math.max(1, options.worker?.concurrency ?? 2);
    const metricsFile = emptyMetricsFile(options, stateDir);
    const env = functionEnvironment(options, {
      consoleApi,
      emulators,
      receiver,
      policyPath,
      notifyReceiver,
      signingSecret,
      metricsFile,
    });

    const context: StackContext = { env, policyPath, emulators, receiver, ...(sandbox ? { sandbox } : {}) };

    // 6. Webhook.
    const handlers = await buildFunctions(options, context, policy);
    const served: ServedApp = await serveApp(handlers.webhook, { port: options.port ?? 0 });
    closers.push(() => served.close());

    // 7. Worker behind the event source mapping.
    const eventSource: EventSource = createEventSource({
      sqs: emulators.sqs,
      queueUrl: emulators.queueUrl,
      handler: handlers.worker,
      batchSize: options.worker?.batchSize ?? 5,
      waitTimeSeconds: options.worker?.waitTimeSeconds ?? 20,
      concurrency,
      functionName: 'autopilot-worker',
      timeoutMs: options.worker?.timeoutMs ?? 60_000,
      ...(options.worker?.onBatch ? { onBatch: options.worker.onBatch } : {}),
      ...(log ? { logger: log.child({ part: 'event-source' }) } : {}),
    });
    // Registered before the emulators' stop runs (closers run in reverse): drain first.
    closers.push(() => eventSource.stop());
    if (options.worker?.autoStart ?? true) eventSource.start();

    // 8. Sweeper on a schedule (one run at a time, like reserved concurrency 1).
    const sweeperTimeoutMs = options.sweeper?.timeoutMs ?? 300_000;
    let sweeping: Promise<unknown> | undefined;
    const runSweeper = async (at: Date = new Date()): Promise<unknown> => {
      if (sweeping) return sweeping;
      const run = handlers.sweeper(
        scheduledEvent(at),
        createLambdaContext({ functionName: 'autopilot-sweeper', timeoutMs: sweeperTimeoutMs }),
      );
      sweeping = run.finally(() => {
        sweeping = undefined;
      });
      return sweeping;
    };
    const stopSchedule = scheduleSweeps(options, runSweeper);
    closers.push(async () => {
      stopSchedule();
      await sweeping?.catch(() => undefined);
    });

    // 9. Release tick: the worker's entry with a scheduled event, every minute like the rule.
    const runRelease = (at: Date = new Date()): Promise<unknown> =>
      handlers.release(
        scheduledEvent(at, 'autopilot-release-tick'),
        createLambdaContext({ functionName: 'autopilot-worker', timeoutMs: 60_000 }),
      );
    const releaseInterval = options.release?.intervalSeconds ?? 60;
    if (releaseInterval !== false) {
      const every = setInterval(
        () => void runRelease().catch((error: unknown) => log?.error('release tick failed', { error })),
        Math.max(1, releaseInterval) * 1000,
      );
      closers.push(async () => clearInterval(every));
    }

    const endpoints: Endpoints = {
      webhookUrl: served.url,
      consoleApiBaseUrl: consoleApi.baseUrl,
      sqsEndpoint: emulators.sqsEndpoint,
      queueUrl: emulators.queueUrl,
      dlqUrl: emulators.dlqUrl,
      dynamodbEndpoint: emulators.dynamodbEndpoint,
      tableName: emulators.tableName,
      slackReceiverUrl: receiver.url,
      ...keptFiles(metricsFile, options.logs),
      ...sandboxKeyOf(consoleApi),
    };
    // The file also names the policy the stack runs: the CLI's --local decides with it.
    if (options.writeEndpointsFile)
      writeEndpointsFile(stateDir, { ...endpoints, policyFile: policyPath }, closers);

    let stopped: Promise<void> | undefined;
    return {
      endpoints,
      env,
      signingSecret,
      policyPath,
      notifyReceiver,
      emulators,
      receiver,
      ...(sandbox !== undefined ? { sandbox } : {}),
      ...(options.logs ? { logs: options.logs } : {}),
      eventSource,
      components: {
        sandbox: sandbox ? 'running' : 'external',
        webhook: 'running',
        worker: 'running',
        sweeper: 'running',
      },
      runSweeper,
      runRelease,
      stop() {
        stopped ??= stopAll();
        return stopped;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

type Closers = Array<() => Promise<void>>;

/**
 * The three functions, each as its entry point in `functions/` builds it (same factories, same
 * wiring) from the stack's environment, unless the caller hands in its own.
 */
async function buildFunctions(
  options: LocalStackOptions,
  context: StackContext,
  policy: Policy,
): Promise<{ webhook: FetchApp; worker: SqsHandler; sweeper: ScheduledHandler; release: ScheduledHandler }> {
  const { env } = context;
  // Each function's lines to its own file, as each has its own log group (the release tick is the worker's).
  const wiring = (name: 'webhook' | 'worker' | 'sweeper') => ({
    policy,
    ...(options.logs ? { sink: options.logs.sink(name) } : {}),
  });
  const workerEntry = () => {
    const entry = createWorkerEntry(workerDepsFromEnv(env, wiring('worker')));
    return (event: ScheduledEvent, lambdaContext: Context) => entry(event, lambdaContext);
  };
  return {
    release: options.release?.handler ?? (await options.release?.createHandler?.(context)) ?? workerEntry(),
    webhook:
      options.webhook?.app ??
      (await options.webhook?.createApp?.(context)) ??
      createWebhookApp(webhookDepsFromEnv(env, wiring('webhook'))),
    worker:
      options.worker?.handler ??
      (await options.worker?.createHandler?.(context)) ??
      createWorker(workerDepsFromEnv(env, wiring('worker'))),
    sweeper:
      options.sweeper?.handler ??
      (await options.sweeper?.createHandler?.(context)) ??
      sweeperHandler(createSweeper(sweeperDepsFromEnv(env, wiring('sweeper')))),
  };
}

/** Closes the parts in the reverse order of their start; a part that fails to stop does not stop the others. */
async function closeInReverse(closers: Closers, log: Logger | undefined): Promise<void> {
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch (error) {
      log?.warn('stopping a part failed', { error: String(error) });
    }
  }
}

/** The files the stack keeps its functions' lines in, for the endpoints file, when it keeps them. */
function keptFiles(
  metricsFile: string | undefined,
  logs: LocalLogs | undefined,
): Pick<Endpoints, 'metricsFile' | 'logsDir'> {
  return { ...(metricsFile ? { metricsFile } : {}), ...(logs ? { logsDir: logs.dir } : {}) };
}

/** The embedded sandbox's read-only key, for the endpoints file (a public value; none for the caller's API). */
function sandboxKeyOf(api: {
  readOnlyApiKey?: string;
  sandbox?: Sandbox;
}): Pick<Endpoints, 'sandboxReadOnlyApiKey'> {
  return api.sandbox && api.readOnlyApiKey ? { sandboxReadOnlyApiKey: api.readOnlyApiKey } : {};
}

/** The caller's Console API, or the embedded sandbox (with a read-only key for the webhook and the sweeper, as deployed). */
async function startConsoleApi(
  options: LocalStackOptions,
  closers: Closers,
): Promise<{ baseUrl: string; apiKey: string; readOnlyApiKey?: string; sandbox?: Sandbox }> {
  if (options.consoleApiBaseUrl) {
    if (!options.consoleApiKey)
      throw new Error('CONSOLE_API_KEY is required when CONSOLE_API_BASE_URL is set');
    return { baseUrl: options.consoleApiBaseUrl, apiKey: options.consoleApiKey };
  }
  const started = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    readOnlyApiKeys: [SANDBOX_READ_ONLY_API_KEY],
    ...options.sandbox,
  });
  closers.push(() => started.close());
  // The embedded sandbox takes its own key: a CONSOLE_API_KEY meant for CONSOLE_API_BASE_URL
  // (still exported in the shell, say) would be answered 401 on every call.
  return {
    baseUrl: started.url,
    apiKey: SANDBOX_API_KEY,
    readOnlyApiKey: SANDBOX_READ_ONLY_API_KEY,
    sandbox: started.sandbox,
  };
}

/** Runs the sweeper every `sweepIntervalSeconds` (first run after `firstSweepDelayMs`); returns how to stop. */
function scheduleSweeps(options: LocalStackOptions, runSweeper: () => Promise<unknown>): () => void {
  const interval = options.sweepIntervalSeconds ?? 60;
  if (interval === false) return () => undefined;
  const log = options.logger;
  const tick = () =>
    void runSweeper().then(
      (result) => log?.info('sweep finished', { result: summarize(result) }),
      (error: unknown) => log?.error('sweep failed', { error }),
    );
  const first = setTimeout(tick, options.firstSweepDelayMs ?? 2_000);
  const every = setInterval(tick, Math.max(1, interval) * 1000);
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}

/** The metric lines since this boot, for `autopilot stats --local` (what the dashboard would show): emptied at boot. */
function emptyMetricsFile(options: LocalStackOptions, stateDir: string): string | undefined {
  const file =
    options.metricsFile ?? (options.writeEndpointsFile ? resolve(stateDir, 'metrics.jsonl') : undefined);
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '');
  }
  return file;
}

/** The functions' environment: theirs alone, as a Lambda's is (the process's is only read). */
function functionEnvironment(
  options: LocalStackOptions,
  parts: {
    consoleApi: Awaited<ReturnType<typeof startConsoleApi>>;
    emulators: Emulators;
    receiver: SlackReceiver;
    policyPath: string;
    notifyReceiver: boolean;
    signingSecret: string;
    metricsFile: string | undefined;
  },
): Record<string, string> {
  const { consoleApi, emulators, receiver } = parts;
  const limits = PLATFORM_MUTATION_LIMITS;
  // No AUTOPILOT_SECRET_ID: locally the secrets are these variables.
  return {
    AWS_REGION: process.env.AWS_REGION || 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // The queue URL's own origin (sqs.<region>.localhost, resolved in-process by the emulators):
    // SDK clients send to the queue URL's host, and then agree with the endpoint.
    AWS_ENDPOINT_URL_SQS: new URL(emulators.queueUrl).origin,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    ACTIONS_QUEUE_URL: emulators.queueUrl,
    DLQ_URL: emulators.dlqUrl,
    STATE_TABLE_NAME: emulators.tableName,
    CONSOLE_API_BASE_URL: consoleApi.baseUrl,
    CONSOLE_API_KEY: consoleApi.apiKey,
    // The webhook and the sweeper only read: with a key that cannot mutate, as deployed (else they fall back).
    ...(consoleApi.readOnlyApiKey ? { CONSOLE_READ_ONLY_API_KEY: consoleApi.readOnlyApiKey } : {}),
    SLACK_SIGNING_SECRET: parts.signingSecret,
    AUTOPILOT_POLICY: parts.policyPath,
    SLACK_REPLY_ORIGINS: receiver.origin,
    ...(parts.notifyReceiver ? { SLACK_WEBHOOK_URL: receiver.channelUrl } : {}),
    // The key's limits, shared by the pollers through the state table as in the CDK stack.
    MUTATION_LIMIT_10S: String(limits.per10s),
    MUTATION_LIMIT_15MIN: String(limits.per15min),
    // The emulated queue's redrive policy, which the worker must know as on Lambda.
    [MAX_RECEIVE_COUNT_VARIABLE]: String(options.queue?.maxReceiveCount ?? MAX_RECEIVE_COUNT),
    // As the CDK stack sets it by default; `CONSOLE_RESPECT_REVIEW_SETTINGS=false npm start` turns it off.
    [RESPECT_REVIEW_SETTINGS_VARIABLE]: String(RESPECT_REVIEW_SETTINGS_DEFAULT),
    // Random per boot: only the functions in this process can vouch for requesters.
    ...localRequesterKeys(),
    ...(parts.metricsFile ? { AUTOPILOT_METRICS_FILE: parts.metricsFile } : {}),
    ...options.env,
  };
}

/** The endpoints file this stack will write, if it writes one. */
function endpointsFileOf(options: LocalStackOptions, stateDir: string): string | undefined {
  return options.writeEndpointsFile ? resolve(stateDir, 'endpoints.json') : undefined;
}

/** Writes `endpoints.json`, removed last on stop: while it exists, the demo may assume the stack is up. */
function writeEndpointsFile(stateDir: string, endpoints: Endpoints, closers: Closers): void {
  mkdirSync(stateDir, { recursive: true });
  const file = resolve(stateDir, 'endpoints.json');
  writeFileSync(file, `${JSON.stringify(endpoints, null, 2)}\n`);
  closers.unshift(async () => rmSync(file, { force: true }));
}

/** A short, log-safe view of a sweeper result. */
function summarize(result: unknown): unknown {
  if (result === undefined || result === null) return result;
  const text = JSON.stringify(result);
  return text.length > 500 ? `${text.slice(0, 500)}…` : result;
}
