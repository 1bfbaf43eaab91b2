/**
 * The worker as the chaos run drives it: short attempts, no client-side budget, and invocations
 * that die: before starting, in the middle of their batch, or right after a DynamoDB put lands
 * (chaos-dying.ts). Each invocation gets its own clients (chaos-invocation.ts): from its function
 * timeout on, every call of an invocation still running fails at once (chaos-timeout.ts), as
 * Lambda stops it then. It also keeps what the tell ledger needs to judge a repeated telling: how
 * many times each request was handed to an invocation, and which requests were in one that
 * crashed or timed out.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { clockOf, createConsoleClient } from '../console/index.js';
import { createNodeSend } from '../http/send.js';
import { createLogger } from '../observability/logger.js';
import { workerDepsFromEnv } from '../wiring/from-env.js';
import { loadPolicyFile } from '../wiring/policy-file.js';
import { createWorker } from '../worker/worker.js';
import { dyingGate, type Gate, holdDeadBatch } from './chaos-dying.js';
import { gatedClients } from './chaos-invocation.js';
import { InvocationTimedOut, timeoutGate } from './chaos-timeout.js';
import { type ChaosTrail, noteTrail, trailSink } from './chaos-trace.js';
import type { SqsHandler } from './event-source.js';

/**
 * The margin the worker adds to its leases (createWorker's default): a dead or timed-out
 * invocation's batch comes back after it (holdDeadBatch), as deployed.
 */
export const CHAOS_LOCK_MARGIN_MS = 15_000;
/**
 * The queue's time is compressed (a 9-s visibility timeout): so is the 429 back-off (15 s, 1 min,
 * 4 min, 15 min as deployed, which no short Retry-After shortens): 1, 1, 4, 16, 64 s here. The
 * drain deadline is computed from it (chaos-drain.ts).
 */
export const CHAOS_RATE_LIMIT_BASE_SECONDS = 0.25;

export interface ChaosCrashes {
  midBatch: number;
  early: number;
  /** Invocations whose process died right after a put landed. */
  afterPut: number;
  /** Invocations still running at the function timeout (not injected: slow calls add up). */
  timedOut: number;
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
  const lockMarginMs = CHAOS_LOCK_MARGIN_MS;
  const build = (gates: Gate[]) => {
    const own = gatedClients(
      {
        table: deps.table,
        sqs: deps.sqs,
        slackSend,
        fetch,
        channelUrl: deps.channelUrl,
        requesterKeys: deps.requesterKeys,
        signer: deps.signer,
      },
      gates,
    );
    const worker = createWorker({
      ...deps,
      table: own.table,
      sqs: own.sqs,
      ...(own.channelUrl ? { channelUrl: own.channelUrl } : {}),
      ...(own.requesterKeys ? { requesterKeys: own.requesterKeys } : {}),
      ...(own.signer ? { signer: own.signer } : {}),
      slack: { allowedOrigins: [], ...deps.slack, send: own.slackSend },
      // Short attempts so hangs cost 1 s, not 10; no client-side budget (429s are injected).
      client: createConsoleClient({
        baseUrl: env.CONSOLE_API_BASE_URL as string,
        apiKey: env.CONSOLE_API_KEY as string,
        timeoutMs: 1_000,
        maxRetries: 2,
        maxRetryDelayMs: 1_000,
        mutationBudget: false,
        clock: clockOf(deps.clock ?? Date.now),
        fetch: own.fetch,
      }),
      logger,
      safetyMarginMs: 1_000,
      lockMarginMs,
      rateLimitBaseSeconds: CHAOS_RATE_LIMIT_BASE_SECONDS,
    });
    return { worker, retimed: own.retimed };
  };
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
    // Lambda stops the invocation at its timeout: from then on its calls fail, its answer is never
    // read, and its batch is held until the leases it wrote ran out (deployed, the visibility
    // outlasts them).
    const timeout = timeoutGate(Date.now() + context.getRemainingTimeInMillis());
    let retimed: ReadonlySet<string> = new Set();
    let ended = false;
    let timedOut = false;
    void timeout.timedOut.then(async () => {
      if (ended) return;
      timedOut = true;
      chaos.crashes.timedOut += 1;
      crashed('TIMED OUT: from here on every call it makes fails at once');
      await holdDeadBatch(chaos.sqs, chaos.queueUrl, event, lockMarginMs, retimed);
    });
    try {
      const result = await run(roll, timeout.gate);
      if (timedOut) throw new InvocationTimedOut('the invocation timed out; its answer was never read');
      return result;
    } finally {
      ended = true;
      timeout.end();
    }

    async function run(roll: number, stopsAtTimeout: Gate) {
      if (roll < chaos.earlyRate + chaos.midRate && event.Records.length > 1) {
        chaos.crashes.midBatch += 1;
        const half = event.Records.slice(0, Math.ceil(event.Records.length / 2));
        crashed(`mid-batch (after its first ${half.length} records)`);
        const own = build([stopsAtTimeout]);
        retimed = own.retimed;
        await own.worker({ Records: half }, context);
        throw new Error('chaos: the invocation died in the middle of its batch');
      }
      if (roll < chaos.earlyRate + chaos.midRate + chaos.dyingRate) {
        const putsBeforeDeath = 1 + Math.floor(chaos.random() * 6);
        const dying = dyingGate(putsBeforeDeath);
        // Dying outermost: once dead, a call the timeout fails later gives nothing back either.
        const own = build([stopsAtTimeout, dying.gate]);
        retimed = own.retimed;
        const ran = own.worker(event, context);
        const outcome = await Promise.race([
          ran.then(() => 'lived' as const),
          dying.died.then(() => 'died' as const),
        ]);
        if (outcome === 'lived') {
          note(`lived (would have died after put ${putsBeforeDeath})`);
          return ran;
        }
        ended = true;
        chaos.crashes.afterPut += 1;
        crashed(`right after put ${putsBeforeDeath} (${dying.lastPut()})`);
        await holdDeadBatch(
          chaos.sqs,
          chaos.queueUrl,
          event,
          context.getRemainingTimeInMillis() + lockMarginMs,
          own.retimed,
        );
        throw new Error('chaos: the process died right after a put');
      }
      const own = build([stopsAtTimeout]);
      retimed = own.retimed;
      const result = await own.worker(event, context);
      if (!timedOut) note(`returned ${JSON.stringify(result ?? {})}`);
      return result;
    }
  };
}
