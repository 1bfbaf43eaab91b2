/**
 * `npm run chaos`: 1,000 mixed action requests through the local stack while the Console API
 * sandbox misbehaves (20 % 5xx, 10 % 429, 5 % hangs, 2 % malformed bodies) and worker
 * invocations crash mid-batch or time out, with short timeouts and parallel pollers, so
 * redeliveries and concurrent copies are the norm. Then it checks the two things that must
 * never happen, against the sandbox's request log and the queues:
 * - a duplicated effect: one effect key mutated successfully more than once;
 * - a lost request: a message with no terminal state (no final outcome, not in the DLQ).
 * And what people were told (src/local/tell-ledger.ts): every post to a requester's reply URL and
 * to the notifications channel, as the local stack's Slack receiver kept them, read against each
 * request's final: told at all, never two different ends, the end recorded, and twice only after
 * a crash (or, to its requester, a redelivery). Some invocations' processes die right after a put
 * lands (chaos-dying.ts), so that telling at least once across crashes is exercised end to end.
 * Exits 1 when any check fails, or when the run does not drain in time.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { effectKey, parseActionRequest } from '../actions/request.js';
import { MAX_RECEIVE_COUNT } from '../queue/redrive.js';
import type { FaultConfig } from '../sandbox/index.js';
import { readAudit, readFinals } from '../state/audit.js';
import { forEachBounded } from '../util/pool.js';
import { FINAL_RESULTS } from '../worker/replies.js';
import { effectsAt } from './chaos-effects.js';
import { type ChaosMessage, chaosMix, seeded } from './chaos-mix.js';
import { chaosTrail, renderTrail } from './chaos-trace.js';
import { type ChaosCrashes, crashyWorker } from './chaos-worker.js';
import { REPO_ROOT } from './endpoints.js';
import { queueDepth } from './event-source.js';
import { bootLocalStack, type LocalStack } from './stack.js';
import { type TellLedger, tellFailures, tellLedger } from './tell-ledger.js';
import { vouchAttributes } from './vouch.js';

export interface ChaosOptions {
  count?: number;
  seed?: number;
  /** Share of invocations that die after processing half their batch. */
  midBatchCrashRate?: number;
  /** Share of invocations that die before processing anything. */
  earlyCrashRate?: number;
  /** Share of invocations whose process dies right after one of its first puts lands. */
  dyingRate?: number;
  faults?: Partial<FaultConfig>;
  /**
   * The worker's function timeout (8 s): the invocation stops acting at it (chaos-timeout.ts).
   * Default visibility: one second longer, so that a message never comes back while an invocation
   * holding it may still run, as deployed (visibility 6 × the timeout: infra/autopilot-stack.ts).
   */
  functionTimeoutMs?: number;
  visibilityTimeoutSeconds?: number;
  pollers?: number;
  /** Give up waiting for the queue to drain after this long. */
  drainTimeoutMs?: number;
  progress?: (line: string) => void;
}

export interface ChaosReport {
  sent: number;
  drained: boolean;
  durationMs: number;
  terminal: Record<string, number>;
  duplicatedEffects: Array<{ effectKey: string; successfulCalls: number }>;
  lost: string[];
  crashes: ChaosCrashes;
  invocations: number;
  recordsDelivered: number;
  faultsInjected: Record<string, number>;
  mutationCalls: number;
  effects: number;
  /** Effects the sandbox applied for which no request records a done outcome (should be 0). */
  effectsWithoutOutcome: string[];
  /** What people were told: the tell ledger's checks (src/local/tell-ledger.ts). */
  telling: TellLedger;
  /** The trails of the requests told never (and of any named by CHAOS_TRACE): chaos-trace.ts. */
  trails?: string[];
}

const DONE_RESULTS = new Set(['approved', 'groups-disabled', 'archived', 'replayed']);

/** How a request's audit trail can end: a final result, a copy that replayed one, or the DLQ. */
const TERMINAL_RESULTS: ReadonlySet<string> = new Set([...FINAL_RESULTS, 'replayed', 'dead-lettered']);

export const CHAOS_FAULTS: Partial<FaultConfig> = {
  errorRate: 0.2,
  rateLimitRate: 0.1,
  hangRate: 0.05,
  malformedRate: 0.02,
  retryAfterSeconds: 1,
};

function chaosPolicy(dir: string): string {
  const policy = JSON.parse(readFileSync(resolve(REPO_ROOT, 'policy.json'), 'utf8'));
  policy.approvals = {
    ...policy.approvals,
    rules: [{ name: 'chaos: CI approves at any time', when: { requesters: ['ci:*'] }, decision: 'approve' }],
    freezes: [],
  };
  policy.actions = {
    disable_groups: { requesters: ['slack:U0ADMIN'] },
    archive_config: { requesters: ['slack:U0ADMIN'], protect: ['checkout_*'] },
  };
  policy.sweeper.eventRules = [];
  policy.notifications = {};
  const file = join(dir, 'chaos-policy.json');
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

async function drainDlq(sqs: SQSClient, dlqUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < 500; i++) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 600,
      }),
    );
    if (!out.Messages?.length) break;
    for (const m of out.Messages) bodies.push(m.Body ?? '');
  }
  return bodies;
}

/** Sends the mix, ten at a time; chaos plays the webhook for its chat requests (they carry its proof). */
async function sendAll(stack: LocalStack, messages: ChaosMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const chunk = messages.slice(i, i + 10);
    const out = await stack.emulators.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: stack.endpoints.queueUrl,
        Entries: chunk.map((m, n) => ({
          Id: String(n),
          MessageBody: m.body,
          MessageAttributes: vouchAttributes(stack.env, m.body),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`the queue refused ${out.Failed.length} message(s)`);
  }
}

/** Polls until the queue stays empty twice in a row, or `drainBy`; true when drained. */
async function drainQueue(
  stack: LocalStack,
  drainBy: number,
  report: (depth: number) => void,
): Promise<boolean> {
  let quiet = 0;
  let lastReport = 0;
  while (Date.now() < drainBy) {
    const depth = await queueDepth(stack.emulators.sqs, stack.endpoints.queueUrl);
    quiet = depth === 0 ? quiet + 1 : 0;
    if (quiet >= 2) return true;
    if (Date.now() - lastReport > 5_000) {
      lastReport = Date.now();
      report(depth);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

/** The request ids among the DLQ's bodies (poison bodies have none). */
function requestIdsOf(bodies: string[]): Set<string> {
  const ids = new Set<string>();
  for (const body of bodies) {
    try {
      const id = (JSON.parse(body) as { requestId?: unknown }).requestId;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // a poison body
    }
  }
  return ids;
}

/**
 * How each request ended: its last terminal audit record (a deferral or a question is not an
 * end; a replay is: the effect's first outcome told again), or the DLQ; the rest are lost.
 */
async function endings(stack: LocalStack, messages: ChaosMessage[]) {
  const dlqBodies = await drainDlq(stack.emulators.sqs, stack.endpoints.dlqUrl);
  const dlqSet = new Set(dlqBodies);
  const dlqIds = requestIdsOf(dlqBodies);
  const table = { client: stack.emulators.dynamo, tableName: stack.endpoints.tableName };
  const finals = new Map<string, string>();
  // Requests whose own end is in their trail (not a replay): it was owed to the channel.
  const ownEnds = new Set<string>();
  const ids = [...new Set(messages.flatMap((m) => (m.requestId ? [m.requestId] : [])))];
  await forEachBounded(ids, 8, async (id) => {
    const records = await readAudit(table, id);
    const last = records.filter((r) => TERMINAL_RESULTS.has(r.result)).at(-1);
    if (last) finals.set(id, last.result);
    if (records.some((r) => FINAL_RESULTS.has(r.result as never))) ownEnds.add(id);
  });
  // The finals as the state table holds them (the item every copy of a request reads its end from).
  const finalItems = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 100)
    for (const [id, final] of await readFinals(table, ids.slice(i, i + 100)))
      finalItems.set(id, final.result);
  const terminal: Record<string, number> = {};
  const lost: string[] = [];
  for (const m of messages) {
    let state: string | undefined;
    if (m.kind === 'poison') state = dlqSet.has(m.body) ? 'invalid → DLQ' : undefined;
    else if (m.requestId) {
      state = finals.get(m.requestId) ?? (dlqIds.has(m.requestId) ? 'retries exhausted → DLQ' : undefined);
    }
    if (state === undefined) lost.push(m.requestId ?? m.body);
    else terminal[state] = (terminal[state] ?? 0) + 1;
  }
  return { finals, terminal, lost, finalItems, ownEnds, dlqIds };
}

/** Effect keys of the requests whose final outcome says the mutation was done. */
function doneEffectKeys(messages: ChaosMessage[], finals: Map<string, string>): Set<string> {
  const doneKeys = new Set<string>();
  for (const m of messages) {
    const final = m.requestId ? finals.get(m.requestId) : undefined;
    if (!final || !DONE_RESULTS.has(final)) continue;
    const parsed = parseActionRequest(m.body);
    if (parsed.ok) doneKeys.add(effectKey(parsed.request));
  }
  return doneKeys;
}

/** The request ids of the messages whose effect key is one of `keys`. */
function requestsOfEffects(messages: ChaosMessage[], keys: Set<string>): string[] {
  if (keys.size === 0) return [];
  return messages.flatMap((m) => {
    const parsed = m.requestId ? parseActionRequest(m.body) : undefined;
    return parsed?.ok && m.requestId && keys.has(effectKey(parsed.request)) ? [m.requestId] : [];
  });
}

export async function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  const count = options.count ?? 1_000;
  const random = seeded(options.seed ?? 11);
  const progress = options.progress ?? (() => undefined);
  const timeoutMs = options.functionTimeoutMs ?? 8_000;
  const crashes: ChaosCrashes = { midBatch: 0, early: 0, afterPut: 0, timedOut: 0 };
  const deliveries = new Map<string, number>();
  const crashed = new Set<string>();
  const trail = chaosTrail();
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-chaos-'));
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);

  const stack = await bootLocalStack({
    port: 0,
    stateDir: dir,
    policyPath: chaosPolicy(dir),
    // The channel's posts go to the receiver, beside the requesters' replies: the tell ledger reads both.
    notifyReceiver: true,
    // Only the injected 429s: the real limits would just make the run long.
    sandbox: { rateLimits: false, faults: { ...CHAOS_FAULTS, ...options.faults } },
    sweepIntervalSeconds: false,
    queue: {
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? Math.ceil(timeoutMs / 1000) + 1,
      maxReceiveCount: MAX_RECEIVE_COUNT,
    },
    worker: {
      batchSize: 10,
      waitTimeSeconds: 1,
      concurrency: options.pollers ?? 4,
      timeoutMs,
      autoStart: false,
      createHandler: ({ env, policyPath, emulators }) =>
        crashyWorker(env, policyPath, {
          random,
          earlyRate: options.earlyCrashRate ?? 0.03,
          midRate: options.midBatchCrashRate ?? 0.05,
          dyingRate: options.dyingRate ?? 0.05,
          crashes,
          deliveries,
          crashed,
          sqs: emulators.sqs,
          queueUrl: emulators.queueUrl,
          trail,
        }),
    },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false, keep: Number.POSITIVE_INFINITY },
  });

  try {
    const sandbox = stack.sandbox;
    const source = stack.eventSource;
    if (!sandbox) throw new Error('the chaos run needs the embedded sandbox');
    const messages: ChaosMessage[] = chaosMix(sandbox, count, options.seed ?? 7, new Date(), (id) =>
      stack.receiver.responseUrl(id),
    );
    await sendAll(stack, messages);
    progress(`sent ${messages.length} messages; ${seconds()} s`);

    source.start();
    const drained = await drainQueue(stack, Date.now() + (options.drainTimeoutMs ?? 150_000), (depth) =>
      progress(
        `… ${seconds()} s: ${depth} on the queue, ${source.stats.batches} invocations, ` +
          `${source.stats.errors} failed, crashes ${crashes.midBatch} mid-batch + ${crashes.early} early + ` +
          `${crashes.afterPut} after a put, ${crashes.timedOut} timed out`,
      ),
    );
    await source.stop();

    const { finals, terminal, lost, finalItems, ownEnds, dlqIds } = await endings(stack, messages);
    const { calls, faultsInjected, mutationCalls } = effectsAt(sandbox);
    const duplicatedEffects = [...calls]
      .filter(([, n]) => n > 1)
      .map(([effectKey, successfulCalls]) => ({ effectKey, successfulCalls }));
    // Every applied effect is owned by a request that says it was done (or replayed that).
    const doneKeys = doneEffectKeys(messages, finals);
    const effectsWithoutOutcome = [...calls.keys()].filter((key) => !doneKeys.has(key));
    const withReplyUrl = new Set(
      messages.flatMap((m) => (m.requestId && m.body.includes('"slackResponseUrl"') ? [m.requestId] : [])),
    );
    const telling = tellLedger(
      stack.receiver.posts(),
      { finals: finalItems, withReplyUrl, channelOwed: ownEnds, deliveries, crashed, inDlq: dlqIds },
      stack.notifyReceiver,
    );
    // The trails of the requests told wrongly or never, of those whose effect was applied twice
    // (and of any named by CHAOS_TRACE).
    const duplicatedKeys = new Set(duplicatedEffects.map((d) => d.effectKey));
    const traced = new Set([
      ...telling.untoldRequester,
      ...telling.untoldChannel,
      ...requestsOfEffects(messages, duplicatedKeys),
      ...(process.env.CHAOS_TRACE ?? '').split(',').filter(Boolean),
    ]);
    const trails: string[] = [];
    for (const id of traced)
      trails.push(
        await renderTrail(
          trail,
          { client: stack.emulators.dynamo, tableName: stack.endpoints.tableName },
          stack.receiver.posts(),
          id,
          messages
            .filter((m) => m.requestId === id)
            .map((m) => m.body)
            .join('\n  message: '),
        ),
      );

    return {
      sent: messages.length,
      drained,
      durationMs: Date.now() - started,
      terminal,
      duplicatedEffects,
      lost,
      crashes,
      invocations: source.stats.batches,
      recordsDelivered: source.stats.records,
      faultsInjected,
      mutationCalls,
      effects: calls.size,
      effectsWithoutOutcome,
      telling,
      trails,
    };
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Why a chaos run failed; empty when it passed. Besides no duplicated and no lost request, the
 * run must have been a real test (faults injected, workers crashed) and every applied effect must
 * belong to a request recorded as done: one that was not is a change made while someone was
 * told otherwise. And what people were told must hold (`tellFailures`).
 */
export function chaosFailures(report: ChaosReport): string[] {
  const failures: string[] = [];
  if (!report.drained) failures.push('the queue did not drain in time');
  if (report.duplicatedEffects.length > 0)
    failures.push(`${report.duplicatedEffects.length} duplicated effect(s)`);
  if (report.lost.length > 0) failures.push(`${report.lost.length} lost request(s)`);
  if (report.effectsWithoutOutcome.length > 0)
    failures.push(
      `${report.effectsWithoutOutcome.length} effect(s) applied without a request recorded as done`,
    );
  if (Object.keys(report.faultsInjected).length === 0) failures.push('no fault was injected at the sandbox');
  if (report.crashes.midBatch + report.crashes.early + report.crashes.afterPut === 0)
    failures.push('no worker crash was injected');
  failures.push(...tellFailures(report.telling));
  return failures;
}

export function renderChaosReport(report: ChaosReport): string {
  const lines = [
    '',
    `chaos: ${report.sent} requests in ${(report.durationMs / 1000).toFixed(1)} s` +
      `${report.drained ? '' : ' — the queue did NOT drain in time'}`,
    `  faults injected at the sandbox: ${Object.entries(report.faultsInjected)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} (of ${report.mutationCalls} mutation calls)`,
    `  worker crashes injected: ${report.crashes.midBatch} mid-batch, ${report.crashes.early} before starting, ` +
      `${report.crashes.afterPut} right after a put; ${report.crashes.timedOut} timed out ` +
      `(${report.invocations} invocations, ${report.recordsDelivered} records delivered)`,
    '',
    '  terminal state                 requests',
    '  ------------------------------ --------',
    ...Object.entries(report.terminal)
      .sort((a, b) => b[1] - a[1])
      .map(([state, n]) => `  ${state.padEnd(30)} ${String(n).padStart(8)}`),
    '',
    `  effects applied: ${report.effects}` +
      (report.effectsWithoutOutcome.length
        ? `; without a recorded "done": ${report.effectsWithoutOutcome.length} ${JSON.stringify(report.effectsWithoutOutcome.slice(0, 5))}`
        : '; each owned by a request recorded as done'),
    `  duplicated effects: ${report.duplicatedEffects.length}${report.duplicatedEffects.length ? ` ${JSON.stringify(report.duplicatedEffects.slice(0, 10))}` : ''}`,
    `  lost requests: ${report.lost.length}${report.lost.length ? ` ${JSON.stringify(report.lost.slice(0, 10))}` : ''}`,
    '',
    ...renderTelling(report.telling),
    '',
    ...(report.trails ?? []),
  ];
  return lines.join('\n');
}

const sample = (items: unknown[]) => (items.length ? ` ${JSON.stringify(items.slice(0, 5))}` : '');

/** The tell ledger's figures: what people were told, against each request's final. */
export function renderTelling(t: TellLedger): string[] {
  const repeats = (to: 'requester' | 'channel') => t.repeats.filter((r) => r.to === to);
  const extra = (list: TellLedger['repeats']) => list.reduce((n, r) => n + r.count - 1, 0);
  const unexplained = t.repeats.filter((r) => !r.explained);
  return [
    `  told: ${t.posts.requester} posts to requesters, ${t.posts.channel} to the channel ` +
      `(${t.posts.ends} of an end, ${t.posts.notEnds} not; ${t.unattributed} about no request we could read, ` +
      `${t.unknown.length} with a headline we do not know${sample(t.unknown)})`,
    `  ended requests (a final in the table): ${t.ended} (${t.owed.requester} with a reply URL, ` +
      `${t.owed.channel} owed to the channel, ${t.owed.crashed} in a crashed invocation); never told to their requester: ` +
      `${t.untoldRequester.length}${sample(t.untoldRequester)}; never told to the channel: ` +
      `${t.untoldChannel.length}${sample(t.untoldChannel)}; untold with their message in the DLQ (told when an ` +
      `operator redrives it): ${t.untoldInDlq.length}${sample(t.untoldInDlq)}`,
    `  told two different ends: ${t.contradictions.length}${sample(t.contradictions)}`,
    `  told an end other than the final: ${t.mismatches.length}${sample(t.mismatches)}`,
    `  the same end told again: to the channel ${extra(repeats('channel'))} time(s) for ${repeats('channel').length} request(s), ` +
      `to requesters ${extra(repeats('requester'))} for ${repeats('requester').length}; ` +
      `with no crash or redelivery to explain it: ${unexplained.length}${sample(unexplained)}`,
  ];
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename);
if (isMain) {
  const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : undefined;
  if (seed !== undefined && !Number.isInteger(seed)) {
    process.stderr.write(`chaos: CHAOS_SEED must be an integer, not ${process.env.CHAOS_SEED}\n`);
    process.exit(2);
  }
  runChaos({ ...(seed !== undefined ? { seed } : {}), progress: (line) => process.stderr.write(`${line}\n`) })
    .then((report) => {
      process.stdout.write(renderChaosReport(report));
      const failures = chaosFailures(report);
      process.stdout.write(
        failures.length === 0
          ? 'PASS: no duplicated effect, no lost request, every effect owned by a request recorded as done, ' +
              'every end told, never two different ends, never twice without a crash\n'
          : `FAIL: ${failures.join('; ')}\n`,
      );
      process.exit(failures.length === 0 ? 0 : 1);
    })
    .catch((error: unknown) => {
      process.stderr.write(
        `chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    });
}
