/**
 * A local stack for a test file: the real handlers, emulators and sandbox, in a temporary
 * directory, with the shipped policy (without its year-end freeze, so nothing depends on the
 * date) changed as the test needs, its endpoints file written for the CLI's `--local`, and no
 * sweeper schedule (tests call `runSweeper()`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ActionRequest } from '../../src/actions/request.js';
import type { CliIo } from '../../src/cli/io.js';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';
import { createSqsClient, sendActionRequest } from '../../src/queue/actions-queue.js';
import { listHeld } from '../../src/state/held.js';
import { createDynamoClient } from '../../src/state/table.js';

export interface TestStack {
  stack: LocalStack;
  dir: string;
  /** The environment that points the CLI's `--local` at this stack. */
  cliEnv: CliIo['env'];
  stop(): Promise<void>;
}

export async function bootTestStack(
  name: string,
  // biome-ignore lint/suspicious/noExplicitAny: a test edits the policy's JSON by hand
  changePolicy: (policy: Record<string, any>) => void = () => {},
): Promise<TestStack> {
  const dir = mkdtempSync(join(tmpdir(), `autopilot-${name}-`));
  const policy = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../policy.json'), 'utf8'));
  policy.approvals.freezes = [];
  changePolicy(policy);
  const policyPath = join(dir, 'policy.json');
  writeFileSync(policyPath, JSON.stringify(policy));
  const stack = await bootLocalStack({
    port: 0,
    stateDir: join(dir, 'state'),
    policyPath,
    writeEndpointsFile: true,
    sweepIntervalSeconds: false,
    worker: { waitTimeSeconds: 1 },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false },
  });
  return {
    stack,
    dir,
    cliEnv: { AUTOPILOT_ENDPOINTS_FILE: join(dir, 'state', 'endpoints.json') },
    async stop() {
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The ids of the sandbox's triggers whose current phase is the canary (`ph_1`). */
export function canaryTriggers(stack: LocalStack): string[] {
  return [...(stack.sandbox?.state.triggers.values() ?? [])]
    .filter((t) => t.currentPhaseID === 'ph_1')
    .map((t) => t.id);
}

/** Polls the stack's state table until `requestId` is held (the worker asked), bounded. */
export async function untilHeld(t: TestStack, requestId: string): Promise<void> {
  const table = {
    client: createDynamoClient({ endpoint: t.stack.endpoints.dynamodbEndpoint }),
    tableName: t.stack.endpoints.tableName,
  };
  try {
    for (let i = 0; i < 200; i++) {
      if ((await listHeld(table)).some((h) => h.requestId === requestId)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${requestId} was never held`);
  } finally {
    table.client.destroy();
  }
}

/** The policy change of the cancel tests: ci:nightly asks a human, and so does ci:cli:<user> (cli:<user> may cancel it). */
// biome-ignore lint/suspicious/noExplicitAny: a test edits the policy's JSON by hand
export function nightlyAsks(policy: Record<string, any>): void {
  policy.approvals.rules = [
    { name: 'nightly asks a human', when: { requesters: ['ci:nightly'] }, decision: 'ask' },
    // cli:<user> may cancel what ci:cli:<user> could ask for.
    { name: 'operators ask', when: { requesters: ['ci:cli:*'] }, decision: 'ask' },
  ];
}

/** ci:nightly asks to approve the canary phase of the stack's first canary trigger (`reply`: its reply URL); polls until it is held. */
export async function heldNightly(
  t: TestStack,
  requestId: string,
  reply?: ActionRequest['reply'],
): Promise<void> {
  const sqs = createSqsClient({ endpoint: t.stack.endpoints.sqsEndpoint });
  try {
    await sendActionRequest(sqs, t.stack.endpoints.queueUrl, {
      version: 1,
      action: 'approve_phase',
      triggerId: canaryTriggers(t.stack)[0] as string,
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'nightly' },
      requestedAt: new Date().toISOString(),
      requestId,
      ...(reply ? { reply } : {}),
    });
  } finally {
    sqs.destroy();
  }
  await untilHeld(t, requestId);
}
