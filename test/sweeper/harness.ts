/**
 * The sweeper's test rig: the sandbox over HTTP, the Console API client, the SQS and DynamoDB
 * emulators (a fresh queue and table per case), a Slack stand-in, and helpers to drain the
 * queue and read the sweeper's state items.
 */
import { CreateQueueCommand, DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import type { EventListing } from '../../src/sandbox/types.js';
import { loadLastSeen } from '../../src/state/last-seen.js';
import { readCursor } from '../../src/state/sweep-cursor.js';
import { createStateTable, type StateTable } from '../../src/state/table.js';
import { loadWatchSet } from '../../src/state/watch.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import { createSweeper, type Sweeper } from '../../src/sweeper/sweeper.js';
import type { EventLike, EventOrder, EventsSource, SweeperDeps } from '../../src/sweeper/types.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';

export const NOW = Date.parse('2026-11-22T03:00:00.000Z');
export const DAY = 86_400_000;

export interface Rig {
  emulators: Emulators;
  sandbox: RunningSandbox;
  slack: SlackCapture;
  events: EventsSource;
  /**
   * The rig's one clock (epoch ms), from NOW: the sandbox's, its Console client's and, unless a
   * test gives the sweeper its own, the sweeper's (makeSweeper). A run given its time moves it
   * there, so a test never depends on the machine's date.
   */
  clock: { now: number };
  close(): Promise<void>;
}

export async function startRig(
  options: { eventOrder?: EventOrder; eventCount?: number; eventListing?: EventListing } = {},
): Promise<Rig> {
  const clock = { now: NOW };
  const [emulators, sandbox, slack] = await Promise.all([
    startEmulators(),
    startSandbox({
      now: () => clock.now,
      eventOrder: options.eventOrder ?? 'newest-first',
      eventCount: options.eventCount ?? 2000,
      ...(options.eventListing ? { eventListing: options.eventListing } : {}),
      rateLimits: false,
    }),
    startSlackCapture(),
  ]);
  // On the rig's clock: the client checks a run's deadline, taken on the sweeper's clock, against it.
  const client = createConsoleClient({
    baseUrl: sandbox.url,
    apiKey: 'sandbox-key',
    maxRetries: 0,
    clock: clockOf(() => clock.now),
  });
  return {
    emulators,
    sandbox,
    slack,
    events: client.events,
    clock,
    async close() {
      await Promise.all([emulators.stop(), sandbox.close(), slack.close()]);
    },
  };
}

/**
 * The rig of the enclosing describe block (or file): started before its tests, closed after them,
 * so that a test file says only what its rig serves. Use it inside hooks and tests only.
 */
export function rigForTests(options: Parameters<typeof startRig>[0] = {}): Rig {
  let started: Rig | undefined;
  beforeAll(async () => {
    started = await startRig(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const startedRig = (): Rig => {
    if (!started) throw new Error('the rig is started before the first test (use it in hooks and tests)');
    return started;
  };
  return new Proxy({} as Rig, { get: (_, name) => Reflect.get(startedRig(), name) });
}

let counter = 0;

/** A fresh table and queue (so cases never see each other's state). */
export async function freshState(rig: Rig): Promise<{ table: StateTable; queueUrl: string }> {
  counter++;
  const tableName = `sweeper-${counter}-${Date.now()}`;
  await createStateTable(rig.emulators.dynamo, tableName);
  const queue = await rig.emulators.sqs.send(
    new CreateQueueCommand({ QueueName: `sweeper-${counter}-${Date.now()}` }),
  );
  return { table: { client: rig.emulators.dynamo, tableName }, queueUrl: queue.QueueUrl as string };
}

export const BASE_POLICY: PolicyInput = {
  version: 1,
  actions: { archive_config: { requesters: ['schedule:*'], protect: ['checkout_*'] } },
  sweeper: {
    eventRules: [
      {
        name: 'approve canary after checks',
        match: { name: 'release_checks_passed', 'metadata.phase': 'canary' },
        enqueue: {
          action: 'approve_phase',
          triggerId: '{metadata.triggerID}',
          phaseId: '{metadata.phaseID}',
        },
      },
      { name: 'tell the channel', match: { name: 'experiment_*' }, notify: true },
    ],
    staleConfigs: {
      configs: ['new_checkout_copy'],
      discover: true,
      staleAfterDays: 30,
      graceDays: 0,
      maxPerRun: 5,
      dryRun: false,
    },
  },
};

/**
 * The event rule the robustness tests (deep metadata, long config ids, untrusted timestamps,
 * observation order) drive: approve the phase a `release_checks_passed` event names.
 */
export const APPROVE_CANARY_RULE = {
  name: 'approve canary',
  match: { name: 'release_checks_passed' },
  enqueue: { action: 'approve_phase', triggerId: '{metadata.triggerID}', phaseId: '{metadata.phaseID}' },
} as const;

/** A policy with only that rule, the schedule allowed to archive, and stale configs discovered in a dry run (or none). */
export function canaryRulePolicy(options: { staleConfigs?: boolean } = {}) {
  return parsePolicy({
    version: 1,
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      eventRules: [APPROVE_CANARY_RULE],
      ...(options.staleConfigs === false ? {} : { staleConfigs: { discover: true, dryRun: true } }),
    },
  });
}

/** A policy letting the schedule archive configs, with the sweeper settings given: what most sweeper tests vary. */
export function schedulePolicy(sweeper: PolicyInput['sweeper']) {
  return parsePolicy({ version: 1, actions: { archive_config: { requesters: ['schedule:*'] } }, sweeper });
}

/** The stale sweep over `config` alone, judged stale after a day unseen, no grace, archives queued: the late-exposure tests' policy. */
export function staleAfterADayPolicy(config: string) {
  return schedulePolicy({
    staleConfigs: { configs: [config], staleAfterDays: 1, graceDays: 0, maxPerRun: 5, dryRun: false },
  });
}

export function policyWith(rig: Rig, patch: (p: PolicyInput) => void = () => {}) {
  const input = structuredClone(BASE_POLICY);
  input.notifications = { slackWebhookUrl: rig.slack.url('/channel') };
  patch(input);
  return parsePolicy(input, 'test policy');
}

/**
 * The base policy with no configs listed for the stale sweep (so discovered ones are judged) and
 * none protected from archiving; at most `maxPerRun` archived a run if given.
 */
export function discoveredStalePolicy(rig: Rig, maxPerRun?: number) {
  return policyWith(rig, (p) => {
    if (p.sweeper?.staleConfigs) {
      p.sweeper.staleConfigs.configs = [];
      if (maxPerRun !== undefined) p.sweeper.staleConfigs.maxPerRun = maxPerRun;
    }
    if (p.actions?.archive_config) p.actions.archive_config.protect = [];
  });
}

/** The base policy's event rules alone (no stale sweep), posting to the Slack stand-in: for tests of rule notices. */
export function rulesOnlyPolicy(rig: Rig) {
  return policyWith(rig, (p) => {
    delete p.sweeper?.staleConfigs;
  });
}

/** Log lines, kept for assertions and silent on stdout. */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return {
    lines,
    logger: createLogger({
      service: 'sweeper-test',
      level: 'debug',
      sink: (line) => lines.push(JSON.parse(line)),
    }),
  };
}

/**
 * The sweeper on `state`. Without a clock of the test's own it runs on the rig's clock, and a run
 * given its time (`now`) first moves that clock there: the schedule's time is the clock's, as
 * deployed. (The default, `Date.now`, took runs at NOW for runs years ahead of the clock on a
 * machine whose date is before it, and their stored times for a future run's.)
 */
export function makeSweeper(
  rig: Rig,
  state: { table: StateTable; queueUrl: string },
  extra: Partial<SweeperDeps> & Pick<SweeperDeps, 'policy'>,
): Sweeper {
  const sweeper = createSweeper({
    events: rig.events,
    table: state.table,
    sqs: rig.emulators.sqs,
    queueUrl: state.queueUrl,
    slackAllowedOrigins: [rig.slack.origin],
    logger: memoryLogger().logger,
    pageSize: 100,
    clock: () => rig.clock.now,
    ...extra,
  });
  if (extra.clock) return sweeper;
  return {
    ...sweeper,
    run(input = {}) {
      if (input.now) rig.clock.now = input.now.getTime();
      return sweeper.run(input);
    },
  };
}

/**
 * A run of a fresh sweeper on `state` over `log()` (served oldest first, in one page) at `at`, under
 * `policy` unless another is given: the tests that sweep the same log at several times share it.
 */
export function sweepsOver(
  rig: Rig,
  state: { table: StateTable; queueUrl: string },
  policy: SweeperDeps['policy'],
  log: () => EventLike[],
) {
  return (at: number, p = policy) =>
    makeSweeper(rig, state, { policy: p, events: sortedLog(log), clock: () => at, pageSize: 1000 }).run({
      now: new Date(at),
      remainingMs: 60_000,
    });
}

/** The sweeper's Lambda handler run once at NOW with a minute left: the scheduled run as deployed. */
export function handleAtNow(sweeper: Sweeper) {
  return sweeperHandler(sweeper)(
    { time: new Date(NOW).toISOString() },
    { getRemainingTimeInMillis: () => 60_000 },
  );
}

/**
 * One scheduled run (the handler at NOW) on a fresh state, under the canary rule alone, over the
 * events a stand-in serves at `baseUrl`, `pageSize` a page: the records-as-written tests' sweep.
 */
export async function sweepServedAt(rig: Rig, baseUrl: string, pageSize: number) {
  const state = await freshState(rig);
  const sweeper = makeSweeper(rig, state, {
    policy: canaryRulePolicy({ staleConfigs: false }),
    events: consoleEventsAt(baseUrl),
    clock: () => NOW,
    pageSize,
  });
  return { state, summary: await handleAtNow(sweeper) };
}

/**
 * One sweep at NOW over `log` (served oldest first, in one page) on a fresh state, with the
 * canary rule and the stale-config sweep on: its summary, its log lines and its state table.
 */
export async function sweepLog(rig: Rig, log: EventLike[]) {
  const state = await freshState(rig);
  const { logger, lines } = memoryLogger();
  const summary = await makeSweeper(rig, state, {
    policy: canaryRulePolicy({ staleConfigs: true }),
    events: sortedLog(() => log),
    clock: () => NOW,
    logger,
    pageSize: 1000,
  }).run({ now: new Date(NOW), remainingMs: 60_000 });
  return { summary, lines, table: state.table };
}

/**
 * One sweep at NOW over `event` alone, on a fresh state with the rules-only policy: its summary
 * and the text of the "tell the channel" notice posted for it (undefined if none was), so that
 * the tests of what a client's words do to a notice keep only the event and what they expect.
 */
export async function sweepToNotice(rig: Rig, event: EventLike) {
  const state = await freshState(rig);
  rig.slack.posts.length = 0;
  const summary = await makeSweeper(rig, state, {
    policy: rulesOnlyPolicy(rig),
    events: sortedLog(() => [event]),
    clock: () => NOW,
  }).run({ now: new Date(NOW), remainingMs: 60_000 });
  const text = rig.slack.posts.find((p) => p.body.text?.includes('rule "tell the channel"'))?.body.text;
  return { summary, text };
}

/** Every message body on the queue (received and deleted), bounded. */
export async function drainQueue(rig: Rig, queueUrl: string): Promise<Array<Record<string, unknown>>> {
  const bodies: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 500; i++) {
    const out = await rig.emulators.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) return bodies;
    for (const m of messages) bodies.push(JSON.parse(m.Body ?? '{}'));
    await rig.emulators.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle as string })),
      }),
    );
  }
  throw new Error('queue did not drain');
}

export async function stateOf(table: StateTable) {
  const [cursor, lastSeen, watch] = await Promise.all([
    readCursor(table),
    loadLastSeen(table),
    loadWatchSet(table),
  ]);
  return { cursor, lastSeen, watch };
}

/** GET /events requests the sandbox served since `from` (an index into its log). */
export function eventRequests(rig: Rig, from = 0) {
  return rig.sandbox.sandbox.requests.slice(from).filter((r) => r.path === '/console/v1/events');
}

/** The events of a Console client at `baseUrl` (a stand-in server), at NOW and without retries. */
export function consoleEventsAt(baseUrl: string): EventsSource {
  return createConsoleClient({ baseUrl, apiKey: 'k', maxRetries: 0, clock: clockOf(() => NOW) }).events;
}

/** A log served oldest first from `log()` (read at every page, so a test can change it between runs). */
export function sortedLog(log: () => EventLike[]): EventsSource {
  return {
    async list({ page, limit }) {
      const sorted = [...log()].sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
      const data = sorted.slice((page - 1) * limit, page * limit);
      return { data, pagination: { itemsPerPage: limit, pageNumber: page, totalItems: sorted.length } };
    },
  };
}

/** Oldest first; serves at most 100 events a page whatever `limit` asks, and reports `limit` back (an API capping `limit` silently). */
export function cappedLog(log: EventLike[]): EventsSource {
  return {
    async list({ page, limit }) {
      const applied = Math.min(limit, 100);
      const data = log.slice((page - 1) * applied, page * applied);
      return { data, pagination: { itemsPerPage: limit, pageNumber: page, totalItems: log.length } };
    },
  };
}
