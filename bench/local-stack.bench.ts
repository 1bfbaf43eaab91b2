/**
 * The local stack (`npm start`'s parts, in process), same run:
 *
 * 1. Boot: sandbox, fauxqs, dynalite, receiver, webhook, worker and sweeper ready to serve.
 * 2. A chat approval end to end — signed `/autopilot approve` over HTTP → webhook → queue →
 *    emulated event source → worker → Console API sandbox → reply at the Slack receiver —
 *    against the baseline of a bare SQS round trip on the same emulator (send, long-poll
 *    receive, delete). The difference is what the system adds on top of the queue.
 *
 * Handlers are built from the factories (fresh dependencies), never from `functions/`: the
 * runner imports every benchmark into one process, and a handler module reads its
 * environment once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { sendSigned, signedSlashCommand } from '../src/local/sign.js';
import { bootLocalStack } from '../src/local/stack.js';
import { createLogger } from '../src/observability/logger.js';
import { createWebhookApp } from '../src/webhook/app.js';
import { webhookDepsFromEnv, workerDepsFromEnv } from '../src/wiring/from-env.js';
import { loadPolicyFile } from '../src/wiring/policy-file.js';
import { createWorker } from '../src/worker/worker.js';
import { percentile } from './stats.js';
import type { BenchSection } from './types.js';

const ROUNDS = Number(process.env.BENCH_LOCAL_ROUNDS ?? 40);
const quiet = createLogger({ service: 'bench', level: 'error', sink: () => undefined });

const round = (n: number) => Number(n.toFixed(2));

export async function run(): Promise<BenchSection> {
  const stateDir = mkdtempSync(join(tmpdir(), 'autopilot-bench-local-'));
  const bootStart = performance.now();
  const stack = await bootLocalStack({
    port: 0,
    stateDir,
    sweepIntervalSeconds: false,
    worker: {
      waitTimeSeconds: 20,
      createHandler: ({ env, policyPath }) =>
        createWorker({ ...workerDepsFromEnv(env, { policy: loadPolicyFile(policyPath) }), logger: quiet }),
    },
    sweeper: { createHandler: () => async () => undefined },
    webhook: { createApp: ({ env }) => createWebhookApp(webhookDepsFromEnv(env, { logger: quiet })) },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false },
  });
  const bootMs = performance.now() - bootStart;

  try {
    const { sqs } = stack.emulators;
    const queueUrl = stack.endpoints.dlqUrl; // the baseline uses the DLQ: nothing polls it
    const system: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < ROUNDS + 5; i++) {
      // Baseline: one message through the queue and back.
      const b0 = performance.now();
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `{"round":${i}}` }));
      const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 20 }));
      const handle = got.Messages?.[0]?.ReceiptHandle;
      if (handle) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: handle }));
      const b1 = performance.now();

      // The system: a chat approval until its reply reaches "Slack". Phases are no longer
      // current after the first rounds: the worker still decides, calls the API and replies.
      const id = `bench-${i}`;
      const s0 = performance.now();
      const response = await sendSigned(
        signedSlashCommand(stack.endpoints.webhookUrl, stack.signingSecret, {
          text: `approve trg_${(i % 11) + 1} ph_${(i % 4) + 1} bench`,
          userId: 'U0ADMIN',
          teamId: 'T0001',
          responseUrl: stack.receiver.responseUrl(id),
          triggerId: id,
        }),
      );
      await response.text();
      await stack.receiver.waitFor((p) => p.path === `/response/${id}`, 30_000);
      const s1 = performance.now();
      if (i >= 5) {
        baseline.push(b1 - b0);
        system.push(s1 - s0);
      }
    }
    system.sort((a, b) => a - b);
    baseline.sort((a, b) => a - b);
    const p50 = percentile(system, 50);
    const b50 = percentile(baseline, 50);
    return {
      title: 'Local stack (npm start parts, in process)',
      rows: [
        {
          name: 'boot: every part ready',
          value: round(bootMs),
          unit: 'ms',
          target: '≤ 5000 ms',
          pass: bootMs <= 5_000,
        },
        {
          name: 'chat approve → reply at the receiver, p50 (vs bare SQS round trip)',
          value: round(p50),
          unit: 'ms',
          baseline: round(b50),
          ratio: round(p50 / b50),
        },
        {
          name: 'chat approve → reply at the receiver, p95 (vs bare SQS round trip)',
          value: round(percentile(system, 95)),
          unit: 'ms',
          baseline: round(percentile(baseline, 95)),
          ratio: round(percentile(system, 95) / percentile(baseline, 95)),
        },
      ],
      notes: [
        `${ROUNDS} rounds after 5 warm-up rounds, baseline and system alternating. Boot excludes loading the modules (about a second under tsx).`,
        'The system path: HTTP + signature check, SendMessage, a long-poll receive by the emulated event source, the worker (state read, effect claim, Console API call, audit), its Slack post to the local receiver.',
      ],
    };
  } finally {
    await stack.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().then(
    (section) => {
      console.log(JSON.stringify(section, null, 2));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
