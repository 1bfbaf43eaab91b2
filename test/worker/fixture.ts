/**
 * The worker's test bench: the SQS and DynamoDB emulators, the Console API sandbox over HTTP, a
 * Slack stand-in, an injectable clock, captured log lines, and helpers to send a request,
 * receive it as a real SQS event and run the handler on it.
 */
import { BatchGetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createRequesterSigner, type RequesterKeys } from '../../src/actions/proof.js';
import type { ActionRequest } from '../../src/actions/request.js';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { type EmulatorOptions, type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { sendActionRequest } from '../../src/queue/actions-queue.js';
import { type RunningSandbox, type StartSandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import type { StateTable } from '../../src/state/table.js';
import { createWorker, type WorkerDeps, type WorkerHandler } from '../../src/worker/worker.js';
import { runningFrom } from '../helpers/clock.js';
import { lambdaContext, queueArn, receiveEvent } from '../helpers/lambda.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';

/** The actions queue's visibility timeout: six times the worker's 60 s timeout (infra/autopilot-stack.ts). */
export const VISIBILITY_MS = 6 * 60_000;

export interface LogLine {
  level: string;
  message: string;
  result?: string;
  requestId?: string;
  rule?: string;
  reason?: string;
  [key: string]: unknown;
}

export interface Bench {
  emulators: Emulators;
  api: RunningSandbox;
  slack: SlackCapture;
  table: StateTable;
  queue: { sqs: Emulators['sqs']; queueUrl: string; arn: string };
  logs: LogLine[];
  clock: { now: Date };
  /** The webhook's and sweeper's requester keys; `send` vouches for slack/events/schedule with them. */
  requesterKeys: RequesterKeys;
  worker(overrides?: Partial<Omit<WorkerDeps, 'policy'>> & { policy?: PolicyInput }): WorkerHandler;
  send(request: Partial<ActionRequest> & Record<string, unknown>): Promise<string>;
  receive(max?: number, waitSeconds?: number): Promise<SQSEvent>;
  run(handler: WorkerHandler, event: SQSEvent, timeoutMs?: number): ReturnType<WorkerHandler>;
  approvals(triggerId: string): number;
  purge(): Promise<void>;
  close(): Promise<void>;
}

export function basePolicy(slackOrigin: string): PolicyInput {
  return {
    version: 1,
    timezone: 'UTC',
    approvals: {
      rules: [
        { name: 'blocked CI is denied', when: { requesters: ['ci:blocked'] }, decision: 'deny' },
        {
          name: 'limited CI',
          when: { requesters: ['ci:limited'] },
          decision: 'approve',
          maxPerHour: 1,
        },
        {
          name: 'CI in office hours',
          when: { requesters: ['ci:*'] },
          decision: 'approve',
          windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
          outsideWindows: 'defer',
        },
        { name: 'schedules ask a human', when: { requesters: ['schedule:*'] }, decision: 'ask' },
      ],
      maxDeferHours: 72,
    },
    actions: {
      disable_groups: { requesters: ['slack:U0ADMIN'] },
      archive_config: { requesters: ['schedule:*', 'slack:U0ADMIN'], protect: ['checkout_*'], maxPerDay: 20 },
    },
    chat: {
      teams: ['T0001'],
      grants: { U0ADMIN: ['approve_phase', 'disable_groups', 'archive_config', 'pause'] },
    },
    notifications: { slackWebhookUrl: `${slackOrigin}/services/channel` },
  };
}

export async function startBench(
  options: {
    emulators?: EmulatorOptions;
    sandbox?: StartSandboxOptions;
    client?: { timeoutMs?: number; maxRetries?: number };
    clock?: 'pinned' | 'running';
  } = {},
): Promise<Bench> {
  const emulators = await startEmulators(options.emulators);
  const api = await startSandbox({ rateLimits: false, ...options.sandbox });
  const slack = await startSlackCapture();
  const table = { client: emulators.dynamo, tableName: emulators.tableName };
  const queue = { sqs: emulators.sqs, queueUrl: emulators.queueUrl, arn: '' };
  queue.arn = await queueArn(queue);
  const logs: LogLine[] = [];
  const clock = { now: new Date('2026-11-23T10:00:00Z') }; // a Monday, inside office hours (UTC)
  // The worker's one clock, shared with its Console client. Pinned at `clock.now` by default, the
  // instant tests set and compare audit stamps with; `running` moves on from it in real time,
  // for tests where locks and deadlines must see time pass.
  const pinned = () => clock.now.getTime();
  const workerClock = options.clock === 'running' ? runningFrom(pinned) : pinned;
  const logger = createLogger({
    service: 'worker',
    level: 'info',
    sink: (line) => logs.push(JSON.parse(line) as LogLine),
  });
  const requesterKeys: RequesterKeys = { webhook: 'test-webhook-key', sweeper: 'test-sweeper-key' };
  const signer = createRequesterSigner(async () => requesterKeys);
  const client = createConsoleClient({
    baseUrl: api.url,
    apiKey: 'sandbox-key',
    timeoutMs: options.client?.timeoutMs ?? 2_000,
    maxRetries: options.client?.maxRetries ?? 1,
    maxRetryDelayMs: 100,
    mutationBudget: false,
    clock: clockOf(workerClock),
  });
  return {
    emulators,
    api,
    slack,
    table,
    queue,
    logs,
    clock,
    requesterKeys,
    worker(overrides = {}) {
      const { policy, ...rest } = overrides;
      return createWorker({
        policy: parsePolicy(policy ?? basePolicy(slack.origin)),
        client,
        sqs: emulators.sqs,
        table,
        queueUrl: emulators.queueUrl,
        dlqUrl: emulators.dlqUrl,
        logger,
        clock: workerClock,
        slack: { allowedOrigins: [slack.origin] },
        requesterKeys: { get: async () => requesterKeys, refresh: async () => false },
        signer,
        ...rest,
      });
    },
    async send(request) {
      const full = {
        version: 1,
        action: 'approve_phase',
        requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
        requestedAt: clock.now.toISOString(),
        ...request,
      } as ActionRequest;
      // The bench plays the webhook and the sweeper: their requests carry their proof.
      return sendActionRequest(emulators.sqs, emulators.queueUrl, full, { signer });
    },
    receive(max = 10, waitSeconds = 0) {
      return receiveEvent(queue, { max, waitSeconds });
    },
    run(handler, event, timeoutMs = 20_000) {
      return handler(event, lambdaContext({ timeoutMs }));
    },
    approvals(triggerId) {
      return api.sandbox.requests.filter(
        (r) => r.method === 'PUT' && r.path.endsWith(`/release_pipeline_triggers/${triggerId}/approve`),
      ).length;
    },
    async purge() {
      await emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: emulators.queueUrl }));
    },
    async close() {
      await api.close();
      await slack.close();
      await emulators.stop();
    },
  };
}

/** `event` as SQS delivers it for the `count`th time (its records' ApproximateReceiveCount). */
export function onReceive(event: SQSEvent, count: number): SQSEvent {
  return {
    Records: event.Records.map((r) => ({
      ...r,
      attributes: { ...r.attributes, ApproximateReceiveCount: String(count) },
    })),
  };
}

/**
 * `event` as sent at `at`: its records' SentTimestamp, which SQS sets when it accepts a message. The
 * emulator stamps the machine's time; a test comparing it with the bench's pinned clock sets it.
 */
export function sentAt(event: SQSEvent, at: Date): SQSEvent {
  return {
    Records: event.Records.map((r) => ({
      ...r,
      attributes: { ...r.attributes, SentTimestamp: String(at.getTime()) },
    })),
  };
}

/** The bench's worker whose Console client throws `error()` (after one attempt) at every phase approval. */
export function approveThrows(bench: Bench, error: () => Error): WorkerHandler {
  return bench.worker({
    client: {
      releasePipelineTriggers: {
        approve: async () => {
          throw Object.assign(error(), { attempts: 1 });
        },
      },
      experiments: { disableGroups: async () => ({}) },
      dynamicConfigs: { archive: async () => ({}) },
    },
  });
}

/** A fresh copy of the sandbox's trigger trg_1 as `triggerId`, with no actions taken on it yet. */
export function copyTrigger(bench: Bench, triggerId: string): void {
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set(triggerId, {
    ...structuredClone(template!),
    id: triggerId,
    actions: [],
  });
}

/**
 * `requestId`'s one message for `triggerId`'s current phase, with a reply URL at
 * `/actions/<requestId>`: sent, then received (the receive's event, unchecked).
 */
export async function sendAndReceive(
  bench: Bench,
  requestId: string,
  triggerId = `trg_${requestId}`,
): Promise<SQSEvent> {
  const phaseId = bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;
  await bench.send({
    triggerId,
    phaseId,
    requestId,
    reply: { slackResponseUrl: bench.slack.url(`/actions/${requestId}`) },
  });
  return bench.receive();
}

/** The bench's table, on which the put of `requestId`'s `approved` audit record is throttled its first `failures` times. */
export function approvedAuditFailing(bench: Bench, requestId: string, failures: number): StateTable {
  let left = failures;
  const real = bench.table.client;
  const client = {
    send: async (command: unknown) => {
      const item = command instanceof PutItemCommand ? command.input.Item : undefined;
      if (left > 0 && item?.requestId?.S === requestId && item?.result?.S === 'approved') {
        left -= 1;
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      }
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

/** The bench's table with `run` run once, right after the first command `lands` picks has returned. */
function runOnceAfter(
  bench: Bench,
  lands: (command: unknown) => boolean,
  run: () => Promise<void>,
): StateTable {
  const real = bench.table.client;
  let ran = false;
  const client = {
    send: async (command: unknown) => {
      const out = await real.send(command as never);
      if (lands(command) && !ran) {
        ran = true;
        await run();
      }
      return out;
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

/**
 * The state table as the worker sees it: `run` runs once, right after its first read of
 * `requestId`'s state, to land a race (a cancel, a click) at that exact point, never by sleeping.
 */
export function runAfterStateRead(bench: Bench, requestId: string, run: () => Promise<void>): StateTable {
  return runOnceAfter(
    bench,
    (command) => {
      const keys =
        command instanceof BatchGetItemCommand ? Object.values(command.input.RequestItems ?? {}) : [];
      return keys.flatMap((k) => k.Keys ?? []).some((key) => key.pk?.S === `audit#${requestId}`);
    },
    run,
  );
}

/**
 * The state table as the release tick sees it: `run` runs once, right after its first listing of
 * held requests, to land a race at that exact point, never by sleeping.
 */
export function runAfterHeldListing(bench: Bench, run: () => Promise<void>): StateTable {
  return runOnceAfter(
    bench,
    (command) =>
      command instanceof QueryCommand && command.input.ExpressionAttributeValues?.[':pk']?.S === 'held#all',
    run,
  );
}

/**
 * The bench's table with `run` run once, right before the put of `requestId`'s `result` audit
 * record: to let another copy of a message run to its end at that exact point, never by sleeping.
 */
export function runBeforeAuditPut(
  bench: Bench,
  requestId: string,
  result: string,
  run: () => Promise<unknown>,
): StateTable {
  const real = bench.table.client;
  let ran = false;
  const client = {
    send: async (command: unknown) => {
      const item = command instanceof PutItemCommand ? command.input.Item : undefined;
      if (!ran && item?.requestId?.S === requestId && item?.result?.S === result) {
        ran = true;
        await run();
      }
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

/** What the requester's reply URL for `requestId` was told, each post's body as JSON text. */
export function requesterPostsAbout(bench: Bench, requestId: string): string[] {
  return bench.slack.posts
    .filter((p) => p.path === `/actions/${requestId}`)
    .map((p) => JSON.stringify(p.body));
}

/** What the channel was told about `requestId` since post number `from`, each post's body as JSON text. */
export function channelPostsAbout(bench: Bench, requestId: string, from: number): string[] {
  return bench.slack.posts
    .slice(from)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body))
    .filter((body) => body.includes(requestId));
}

/**
 * The bench of a test file: started before its tests, closed after them. Use it inside hooks and
 * tests only (it is started by then).
 */
export function benchForFile(options: Parameters<typeof startBench>[0] = {}): Bench {
  return benchStartedIn(beforeAll, afterAll, options, 'before the first test');
}

/**
 * A new bench for each test of a file: started before the test, closed after it, so that no test
 * sees another's sandbox, queue or table. Use it inside hooks and tests only.
 */
export function benchForEachTest(options: Parameters<typeof startBench>[0] = {}): Bench {
  return benchStartedIn(beforeEach, afterEach, options, 'before each test');
}

/** A bench started in the `start` hook and closed in the `stop` one, standing in for it from the first. */
function benchStartedIn(
  start: (hook: () => Promise<void>) => void,
  stop: (hook: () => Promise<void>) => void,
  options: Parameters<typeof startBench>[0],
  when: string,
): Bench {
  let started: Bench | undefined;
  start(async () => {
    started = await startBench(options);
  });
  stop(async () => {
    await started?.close();
  });
  const startedBench = (): Bench => {
    if (!started) throw new Error(`the bench is started ${when} (use it in hooks and tests)`);
    return started;
  };
  return new Proxy({} as Bench, {
    get: (_, name) => Reflect.get(startedBench(), name),
    // So that `{ ...bench, table }` spreads the started bench (a deployed tick on another table).
    ownKeys: () => Reflect.ownKeys(startedBench()),
    getOwnPropertyDescriptor: (_, name) => {
      const own = Reflect.getOwnPropertyDescriptor(startedBench(), name);
      return own && { ...own, configurable: true };
    },
  });
}

/** The bench of a test file (benchForFile), reset before each test: 10:00 on Monday 2026-11-23, the queue empty. */
export function benchResetEachTest(options: Parameters<typeof startBench>[0] = {}): Bench {
  const bench = benchForFile(options);
  beforeEach(async () => {
    bench.clock.now = new Date('2026-11-23T10:00:00Z');
    await bench.purge();
  });
  return bench;
}

/**
 * The bench's table as a worker whose process dies right after the put of the first item matching
 * `dies` lands (a timeout, an out-of-memory kill, a runtime crash): that put and every later call
 * through this table never answer, so nothing after it runs and no catch block gives anything
 * back. `died` settles once the put is in the table.
 */
export function dyingAfterPut(
  bench: Bench,
  dies: (item: Record<string, { S?: string }>) => boolean,
): { table: StateTable; died: Promise<void> } {
  return dyingTable(bench, (command) => {
    const item = command instanceof PutItemCommand ? command.input.Item : undefined;
    return item && dies(item as Record<string, { S?: string }>) ? 'after' : undefined;
  });
}

/**
 * The bench's table as a worker whose process dies as it sends the first command `dies` picks (a
 * timeout, a crash): that command and every later call through this table never answer, so
 * nothing after it runs and no catch block runs. `died` settles when it is reached.
 */
export function dyingAtCommand(
  bench: Bench,
  dies: (command: unknown) => boolean,
): { table: StateTable; died: Promise<void> } {
  return dyingTable(bench, (command) => (dies(command) ? 'before' : undefined));
}

/**
 * The one mechanism of the dying tables: the command `when` picks dies before it is sent or
 * after its answer, and from then on this table never answers again.
 */
function dyingTable(
  bench: Bench,
  when: (command: unknown) => 'before' | 'after' | undefined,
): { table: StateTable; died: Promise<void> } {
  const real = bench.table.client;
  let dead = false;
  let markDead: () => void = () => {};
  const died = new Promise<void>((resolve) => {
    markDead = resolve;
  });
  const never = new Promise<never>(() => {});
  const client = {
    send: async (command: unknown) => {
      if (dead) return never;
      const dies = when(command);
      if (dies === 'after') await real.send(command as never);
      else if (dies === undefined) return real.send(command as never);
      dead = true;
      markDead();
      return never;
    },
  } as unknown as StateTable['client'];
  return { table: { client, tableName: bench.table.tableName }, died };
}

/** The bench's table as a worker that dies at its read of `requestId`'s state (dyingAtCommand). */
export function dyingAtStateRead(
  bench: Bench,
  requestId: string,
): { table: StateTable; died: Promise<void> } {
  return dyingAtCommand(bench, (command) => {
    const keys =
      command instanceof BatchGetItemCommand ? Object.values(command.input.RequestItems ?? {}) : [];
    return keys.flatMap((k) => k.Keys ?? []).some((key) => key.pk?.S === `audit#${requestId}`);
  });
}
