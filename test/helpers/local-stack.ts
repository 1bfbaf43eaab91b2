/**
 * A local stack for a test file: the real handlers, emulators and sandbox, in a temporary
 * directory, with the shipped policy (without its year-end freeze, so nothing depends on the
 * date) changed as the test needs, its endpoints file written for the CLI's `--local`, and no
 * sweeper schedule (tests call `runSweeper()`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CliIo } from '../../src/cli/io.js';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';
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
