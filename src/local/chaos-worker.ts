/**
 * The worker as the chaos run drives it: short attempts, no client-side budget, and invocations
 * that die: before starting, in the middle of their batch, or right after a DynamoDB put lands
 * (chaos-dying.ts). It also keeps what the tell ledger needs to judge a repeated telling: how many
 * times each request was handed to an invocation, and which requests were in one that crashed.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { clockOf, createConsoleClient } from '../console/index.js';
import { createNodeSend } from '../http/send.js';
import { createLogger } from '../observability/logger.js';
import { workerDepsFromEnv } from '../wiring/from-env.js';
import { loadPolicyFile } from '../wiring/policy-file.js';
import { createWorker } from '../worker/worker.js';
import { dyingProcess, holdDeadBatch } from './chaos-dying.js';
import { type ChaosTrail, noteTrail, trailSink } from './chaos-trace.js';
import type { SqsHandler } from './event-source.js';

export interface ChaosCrashes {
  midBatch: number;
  early: number;
  /** Invocations whose process died right after a put landed. */
  afterPut: number;
}

export interface ChaosWorkerOptions {
  random: () => number;
  earlyRate: number;
  midRate: number;
  /** Share of invocations whose process dies right after its first to sixth put. */
  dyingRate: number;
  crashes: ChaosCrashes;
  /** Per request id: records handed to an invocation. */
  deliveries: Map<string, number>;
  /** Request ids that were in an invocation that crashed. */
  crashed: Set<string>;
  sqs: Pick<SQSClient, 'send'>;
  queueUrl: string;
  /** What happened to each request, for the trail of one the ledger finds untold (chaos-trace.ts). */
  trail?: ChaosTrail;
}

function requestIdOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { requestId?: unknown }).requestId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export function crashyWorker(
  env: Record<string, string>,
  policyPath: string,
  chaos: ChaosWorkerOptions,
): SqsHandler {
  const deps = workerDepsFromEnv(env, { policy: loadPolicyFile(policyPath) });
  const slackSend = createNodeSend();
  let invocations = 0;
  let current = 0;
  const { trail } = chaos;
  const logger = trail
    ? createLogger({ service: 'worker', level: 'info', sink: trailSink(trail, () => current) })
    : createLogger({ service: 'worker', level: 'error', sink: () => undefined });
  // The margin the worker adds to its leases (createWorker's default): a dead invocation's batch
  // comes back after it. Shortened, an invocation the event source timed out (in-process it runs
  // on) outlives its leases, which a killed Lambda never does.
  const lockMarginMs = 15_000;
  const build = (
    overrides: { table?: typeof deps.table; fetch?: typeof fetch; send?: typeof slackSend } = {},
  ) =>
    createWorker({
      ...deps,
      ...(overrides.table ? { table: overrides.table } : {}),
      slack: { allowedOrigins: [], ...deps.slack, send: overrides.send ?? slackSend },
      // Short attempts so hangs cost 1 s, not 10; no client-side budget (429s are injected).
      client: createConsoleClient({
        baseUrl: env.CONSOLE_API_BASE_URL as string,
        apiKey: env.CONSOLE_API_KEY as string,
        timeoutMs: 1_000,
        maxRetries: 2,
        maxRetryDelayMs: 1_000,
        mutationBudget: false,
        clock: clockOf(deps.clock ?? Date.now),
        ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
      }),
      logger,
      safetyMarginMs: 1_000,
      lockMarginMs,
      // The queue's time is compressed (a 5-s visibility timeout): so is the 429 back-off (15 s,
      // 1 min, 4 min as deployed, which no short Retry-After shortens): 1, 1, 4, 16 s here.
      rateLimitBaseSeconds: 0.25,
    });
  const worker = build();
  return async (event, context) => {
    const ids = event.Records.flatMap((r) => requestIdOf(r.body) ?? []);
    for (const id of ids) chaos.deliveries.set(id, (chaos.deliveries.get(id) ?? 0) + 1);
    const invocation = ++invocations;
    current = invocation;
    const note = (what: string, of: string[] = ids) => {
      if (trail) for (const id of of) noteTrail(trail, id, `#${invocation} ${what}`);
    };
    for (const r of event.Records) {
      const id = requestIdOf(r.body);
      if (id)
        note(
          `delivered (message ${r.messageId.slice(0, 8)}, receive ${r.attributes?.ApproximateReceiveCount}, batch of ${event.Records.length})`,
          [id],
        );
    }
    const crashed = (how: string) => {
      note(`CRASHED ${how}`);
      for (const id of ids) chaos.crashed.add(id);
    };
    const roll = chaos.random();
    if (roll < chaos.earlyRate) {
      chaos.crashes.early += 1;
      crashed('before it started');
      throw new Error('chaos: the invocation died before it started');
    }
    if (roll < chaos.earlyRate + chaos.midRate && event.Records.length > 1) {
      chaos.crashes.midBatch += 1;
      const half = event.Records.slice(0, Math.ceil(event.Records.length / 2));
      crashed(`mid-batch (after its first ${half.length} records)`);
      await worker({ Records: half }, context);
      throw new Error('chaos: the invocation died in the middle of its batch');
    }
    if (roll < chaos.earlyRate + chaos.midRate + chaos.dyingRate) {
      const putsBeforeDeath = 1 + Math.floor(chaos.random() * 6);
      const dying = dyingProcess(deps.table, slackSend, putsBeforeDeath);
      const run = build({ table: dying.table, fetch: dying.fetch, send: dying.slackSend })(event, context);
      const outcome = await Promise.race([
        run.then(() => 'lived' as const),
        dying.died.then(() => 'died' as const),
      ]);
      if (outcome === 'lived') {
        note(`lived (would have died after put ${putsBeforeDeath})`);
        return run;
      }
      chaos.crashes.afterPut += 1;
      crashed(`right after put ${putsBeforeDeath} (${dying.lastPut()})`);
      await holdDeadBatch(
        chaos.sqs,
        chaos.queueUrl,
        event,
        context.getRemainingTimeInMillis() + lockMarginMs,
      );
      throw new Error('chaos: the process died right after a put');
    }
    const result = await worker(event, context);
    note(`returned ${JSON.stringify(result ?? {})}`);
    return result;
  };
}
