/**
 * `npm run chaos`: 1,000 mixed action requests through the local stack while the Console API
 * sandbox misbehaves (20 % 5xx, 10 % 429, 5 % hangs, 2 % malformed bodies) and worker
 * invocations crash mid-batch or time out, with short timeouts and parallel pollers, so
 * redeliveries and concurrent copies are the norm. Then it checks what must never happen,
 * against the sandbox's request log and the queues:
 * - a duplicated effect: one effect key mutated successfully more than once;
 * - a lost request: a message with no terminal state (no final outcome, not in the DLQ);
 * - an effect applied without a request recorded as done, and a request recorded flatly as done
 *   whose change the sandbox never applied (chaos-effects.ts).
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
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { MAX_RECEIVE_COUNT } from '../queue/redrive.js';
import type { FaultConfig } from '../sandbox/index.js';
import { chaosMessageLifeMs, drainDeadline, drainQueue, firstDeliveries } from './chaos-drain.js';
import { doneWithoutEffect, effectsAt, saysFlatlyDone } from './chaos-effects.js';
import { doneEffectKeys, endings, requestsOfEffects } from './chaos-endings.js';
import { type ChaosMessage, chaosMix, seeded } from './chaos-mix.js';
import { type ChaosReport, chaosFailures, renderChaosReport } from './chaos-report.js';
import { chaosTrail, renderTrail } from './chaos-trace.js';
import { type ChaosCrashes, crashyWorker } from './chaos-worker.js';
import { REPO_ROOT } from './endpoints.js';
import { bootLocalStack, type LocalStack } from './stack.js';
import { tellLedger } from './tell-ledger.js';
import { vouchAttributes } from './vouch.js';

export { type ChaosReport, chaosFailures, renderChaosReport, renderTelling } from './chaos-report.js';

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
  /**
   * The time allowed for the mix to be taken off the queue once (default 150 s). The run waits
   * longer while a message first delivered late may still rightly be on the queue: up to the
   * worker's own longest schedule after the last first delivery (chaos-drain.ts).
   */
  drainTimeoutMs?: number;
  progress?: (line: string) => void;
}

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
  const visibilityTimeoutSeconds = options.visibilityTimeoutSeconds ?? Math.ceil(timeoutMs / 1000) + 1;
  const faults = { ...CHAOS_FAULTS, ...options.faults };
  // How long one message may rightly stay on the queue, from the worker's own schedule.
  const messageLifeMs = chaosMessageLifeMs(timeoutMs, visibilityTimeoutSeconds, faults.retryAfterSeconds);
  let delivered: ReturnType<typeof firstDeliveries> | undefined;

  const stack = await bootLocalStack({
    port: 0,
    stateDir: dir,
    policyPath: chaosPolicy(dir),
    // The channel's posts go to the receiver, beside the requesters' replies: the tell ledger reads both.
    notifyReceiver: true,
    // Only the injected 429s: the real limits would just make the run long.
    sandbox: { rateLimits: false, faults },
    sweepIntervalSeconds: false,
    queue: {
      visibilityTimeoutSeconds,
      maxReceiveCount: MAX_RECEIVE_COUNT,
    },
    worker: {
      batchSize: 10,
      waitTimeSeconds: 1,
      concurrency: options.pollers ?? 4,
      timeoutMs,
      autoStart: false,
      createHandler: ({ env, policyPath, emulators }) => {
        delivered = firstDeliveries(
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
        );
        return delivered.handler;
      },
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
    const drainStartedAt = Date.now();
    const deadline = () =>
      drainDeadline({
        drainStartedAt,
        backlogAllowanceMs: options.drainTimeoutMs ?? 150_000,
        lastFirstDeliveryAt: delivered?.lastFirstDeliveryAt(),
        messageLifeMs,
      });
    const drained = await drainQueue(stack, deadline, (depth) =>
      progress(
        `… ${seconds()} s: ${depth} on the queue, ${source.stats.batches} invocations, ` +
          `${source.stats.errors} failed, crashes ${crashes.midBatch} mid-batch + ${crashes.early} early + ` +
          `${crashes.afterPut} after a put, ${crashes.timedOut} timed out`,
      ),
    );
    await source.stop();

    const { finals, terminal, lost, finalItems, finalOutcomes, ownEnds, dlqIds } = await endings(
      stack,
      messages,
    );
    const { calls, faultsInjected, mutationCalls } = effectsAt(sandbox);
    const duplicatedEffects = [...calls]
      .filter(([, n]) => n > 1)
      .map(([effectKey, successfulCalls]) => ({ effectKey, successfulCalls }));
    // Every applied effect is owned by a request that says it was done (or replayed that).
    const doneKeys = doneEffectKeys(messages, finals);
    const effectsWithoutOutcome = [...calls.keys()].filter((key) => !doneKeys.has(key));
    // And the reverse: every request told flatly "done" had its change applied by the sandbox.
    const doneUnapplied = doneWithoutEffect(messages, finalOutcomes, calls);
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
      ...doneUnapplied,
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
      doneWithoutEffect: doneUnapplied,
      doneChecked: [...finalOutcomes.values()].filter(saysFlatlyDone).length,
      telling,
      trails,
    };
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
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
              'every done applied, ' +
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
