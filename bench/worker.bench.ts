/**
 * Worker benchmarks, all against the Console API sandbox over HTTP with the SQS and DynamoDB
 * emulators in process:
 *
 * 1. Draining 1,000 approval requests through the worker (the local event-source loop: 4
 *    pollers, batches of 10, 5 records at a time) while the sandbox enforces the platform's
 *    mutation limits — 100 per 10 s and 900 per 15 min, both windows shortened by SCALE (the
 *    client's budget the same way) so the run fits in a minute. Reported: the achieved mutation
 *    rate as a share of what the budget allows for 1,000 mutations (the earliest schedule both
 *    windows permit, computed for the same limits), and the number of 429s (target 0).
 * 2. Worker overhead per message: one request per invocation through the handler (state reads,
 *    claim, audit, API call) against a direct client call of the same operation, interleaved in
 *    the same run so machine noise falls on both alike.
 */
import { pathToFileURL } from 'node:url';
import { DeleteMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { createConsoleClient } from '../src/console/index.js';
import { startEmulators } from '../src/local/emulators.js';
import { createLogger } from '../src/observability/logger.js';
import { parsePolicy } from '../src/policy/parse.js';
import { sendActionRequest } from '../src/queue/actions-queue.js';
import { startSandbox } from '../src/sandbox/index.js';
import { createWorker } from '../src/worker/worker.js';
import { drive, lambdaContext, queueArn, receiveEvent } from '../test/helpers/lambda.js';
import { median } from './stats.js';
import type { BenchSection } from './types.js';

const SCALE = Number(process.env.BENCH_WORKER_SCALE ?? 20);
const REQUESTS = Number(process.env.BENCH_WORKER_REQUESTS ?? 1000);
const OVERHEAD_SAMPLES = Number(process.env.BENCH_WORKER_OVERHEAD_SAMPLES ?? 60);
const SHARE_TARGET = 0.9;
const KEY = 'sandbox-key';
const OVERHEAD_KEY = 'overhead-key';
const POLLERS = Number(process.env.BENCH_WORKER_POLLERS ?? 4);

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/** The earliest time the n-th mutation may be sent under sliding windows, all sent as early as allowed. */
export function idealSpanMs(n: number, limits: ReadonlyArray<{ max: number; perMs: number }>): number {
  const at: number[] = [];
  for (let j = 0; j < n; j++) {
    let t = 0;
    for (const { max, perMs } of limits) if (j >= max) t = Math.max(t, (at[j - max] as number) + perMs);
    at.push(t);
  }
  return at[n - 1] ?? 0;
}

const POLICY = parsePolicy({
  version: 1,
  timezone: 'UTC',
  approvals: { rules: [{ name: 'bench approves CI', when: { requesters: ['ci:*'] }, decision: 'approve' }] },
});

export async function run(): Promise<BenchSection> {
  const limits = [
    { max: 100, perMs: 10_000 / SCALE },
    { max: 900, perMs: (15 * 60_000) / SCALE },
  ];
  const emulators = await startEmulators({ visibilityTimeoutSeconds: 60 });
  // Rate windows are per API key: the overhead runs use their own key, so they never eat the drain's budget.
  const api = await startSandbox({ apiKeys: [KEY, OVERHEAD_KEY], rateLimits: { limits, retryAfter: true } });
  try {
    // 1,000 + overhead samples fresh triggers, each waiting on its first phase (clones of trg_1).
    const template = api.sandbox.state.triggers.get('trg_1');
    if (template?.currentPhaseID !== 'ph_1') throw new Error('sandbox seed changed: trg_1 is not at ph_1');
    const addTriggers = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => {
        const id = `${prefix}_${i}`;
        api.sandbox.state.triggers.set(id, { ...structuredClone(template), id, actions: [] });
        return id;
      });

    const table = { client: emulators.dynamo, tableName: emulators.tableName };
    const queue = { sqs: emulators.sqs, queueUrl: emulators.queueUrl, arn: '' };
    queue.arn = await queueArn(queue);
    const logger = createLogger({ service: 'worker', level: 'error', sink: () => undefined });
    const client = createConsoleClient({ baseUrl: api.url, apiKey: KEY, mutationBudget: { limits } });
    const worker = createWorker({
      policy: POLICY,
      client,
      sqs: emulators.sqs,
      table,
      queueUrl: emulators.queueUrl,
      dlqUrl: emulators.dlqUrl,
      logger,
    });
    const request = (triggerId: string, i: number) => ({
      version: 1 as const,
      action: 'approve_phase' as const,
      triggerId,
      phaseId: 'ph_1',
      requestedBy: { source: 'ci' as const, id: 'bench' },
      requestedAt: new Date().toISOString(),
      requestId: `bench-${triggerId}-${i}`,
    });

    // 2. Overhead per message: a budget-free client (own key) for the direct calls and for this
    // worker, so neither waits on a limiter and only the work per message is compared.
    const freeClient = createConsoleClient({ baseUrl: api.url, apiKey: OVERHEAD_KEY, mutationBudget: false });
    const overheadWorker = createWorker({
      policy: POLICY,
      client: freeClient,
      sqs: emulators.sqs,
      table,
      queueUrl: emulators.queueUrl,
      dlqUrl: emulators.dlqUrl,
      logger,
    });
    const direct: number[] = [];
    const viaWorker: number[] = [];
    const directIds = addTriggers('direct', OVERHEAD_SAMPLES);
    const workerIds = addTriggers('viaworker', OVERHEAD_SAMPLES);
    for (let i = 0; i < OVERHEAD_SAMPLES; i++) {
      await sendActionRequest(emulators.sqs, emulators.queueUrl, request(workerIds[i] as string, i));
      const event = await receiveEvent(queue, { max: 1 });
      const t0 = performance.now();
      await freeClient.releasePipelineTriggers.approve(directIds[i] as string, { phaseID: 'ph_1' });
      const t1 = performance.now();
      const response = await overheadWorker(event, lambdaContext({ timeoutMs: 30_000 }));
      const t2 = performance.now();
      if (response.batchItemFailures.length > 0) throw new Error('overhead run: a record failed');
      direct.push(t1 - t0);
      viaWorker.push(t2 - t1);
      await emulators.sqs.send(
        new DeleteMessageCommand({
          QueueUrl: emulators.queueUrl,
          ReceiptHandle: event.Records[0]?.receiptHandle,
        }),
      );
    }

    // 1. The drain.
    const drainIds = addTriggers('drain', REQUESTS);
    const firstRequest = api.sandbox.requests.length;
    // Enqueued in batches of 10, 10 batches at a time (the producer side is not what is measured).
    const batches = Array.from({ length: Math.ceil(drainIds.length / 10) }, (_, b) =>
      drainIds.slice(b * 10, b * 10 + 10),
    );
    for (let i = 0; i < batches.length; i += 10) {
      await Promise.all(
        batches.slice(i, i + 10).map((ids, b) =>
          emulators.sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: emulators.queueUrl,
              Entries: ids.map((id, j) => ({
                Id: String(j),
                MessageBody: JSON.stringify(request(id, (i + b) * 10 + j)),
              })),
            }),
          ),
        ),
      );
    }
    const started = performance.now();
    const stats = await drive(queue, worker, {
      pollers: POLLERS,
      batchSize: 10,
      timeoutMs: 60_000,
      maxMs: 180_000,
    });
    const drainMs = performance.now() - started;
    const served = api.sandbox.requests.slice(firstRequest).filter((r) => r.method === 'PUT');
    const ok = served.filter((r) => r.status === 200);
    const limited = served.filter((r) => r.status === 429).length;
    const approvedTriggers = drainIds.filter(
      (id) => api.sandbox.state.triggers.get(id)?.currentPhaseID === 'ph_2',
    );
    const times = ok.map((r) => r.at);
    const spanMs = Math.max(...times) - Math.min(...times);
    const idealMs = idealSpanMs(ok.length, limits);
    const share = spanMs > 0 ? idealMs / spanMs : 1;
    const overheadMs = median(viaWorker) - median(direct);

    return {
      title: 'Action worker',
      rows: [
        {
          name: `drain ${REQUESTS} approvals: mutation rate / budget (limits ÷${SCALE})`,
          value: round(share),
          unit: 'share',
          target: `≥ ${SHARE_TARGET}`,
          pass: share >= SHARE_TARGET && limited === 0 && approvedTriggers.length === REQUESTS,
        },
        { name: 'drain: 429 answers', value: limited, unit: 'count', target: '0', pass: limited === 0 },
        {
          name: 'drain: approvals done',
          value: approvedTriggers.length,
          unit: 'count',
          target: `${REQUESTS}`,
        },
        {
          name: 'drain: achieved mutation rate',
          value: round(ok.length / (spanMs / 1000), 1),
          unit: 'per s',
          baseline: round(ok.length / (idealMs / 1000), 1),
        },
        {
          name: 'per message: worker handler (median)',
          value: round(median(viaWorker), 2),
          unit: 'ms',
          baseline: round(median(direct), 2),
          ratio: round(median(viaWorker) / median(direct), 2),
        },
        {
          name: 'per message: worker overhead over a direct call (median)',
          value: round(overheadMs, 2),
          unit: 'ms',
        },
      ],
      notes: [
        `Limits ${limits.map((l) => `${l.max}/${round(l.perMs / 1000, 2)} s`).join(' + ')} (the platform's 100/10 s + 900/15 min, windows ÷${SCALE}), enforced by the sandbox and by the client's budget alike.`,
        `Share = the shortest span in which both windows allow ${ok.length} mutations (${round(idealMs / 1000, 2)} s) / the span observed between the first and last approval (${round(spanMs / 1000, 2)} s). Drain wall time ${round(drainMs / 1000, 1)} s, ${stats.invocations} invocations, ${stats.records} records.`,
        `Overhead: ${OVERHEAD_SAMPLES} single-record invocations (budget off), interleaved with direct approve calls; the worker's extra work per message is one BatchGetItem, the effect claim and a re-read, the completion and the audit record (DynamoDB emulator), plus the log line. No Slack replies in either run.`,
      ],
    };
  } finally {
    await api.close();
    await emulators.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then((section) => console.log(JSON.stringify(section, null, 2)));
}
