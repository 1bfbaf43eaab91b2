/**
 * A deployed entry point (functions/*.ts) wired by the environment alone on the emulators, its
 * metric lines copied to a file, beside the synthesized stack: for the tests that check an alarm
 * reads what the function really emits.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, vi } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { type Synthesized, synthesize } from './synth.js';

export interface DeployedWithMetrics {
  /** The stack, synthesized without bundling. */
  synth: Synthesized;
  emulators: Emulators;
  /** The metric lines the deployed wiring has copied to its file so far. */
  metricLines(): string[];
}

/**
 * Before the file's tests: the stack synthesized, the emulators started and the environment stubbed
 * as `env(emulators)` says, plus the emulators' table and endpoints, the metrics file and no
 * secret; all undone after them. Use the result inside hooks and tests only.
 */
export function deployedWithMetrics(
  name: string,
  env: (emulators: Emulators) => Record<string, string>,
): DeployedWithMetrics {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const metricsFile = join(dir, 'metrics.jsonl');
  const deployed = {
    metricLines: () => readFileSync(metricsFile, 'utf8').split('\n').filter(Boolean),
  } as DeployedWithMetrics;
  beforeAll(async () => {
    deployed.synth = synthesize({}, { bundle: false });
    deployed.emulators = await startEmulators();
    const emulators = deployed.emulators;
    const all: Record<string, string> = {
      ...env(emulators),
      STATE_TABLE_NAME: emulators.tableName,
      AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      LOG_LEVEL: 'error',
      // Where the deployed wiring also copies its metric lines (the local stack's file).
      AUTOPILOT_METRICS_FILE: metricsFile,
    };
    for (const [variable, value] of Object.entries(all)) vi.stubEnv(variable, value);
    vi.stubEnv('AUTOPILOT_SECRET_ID', '');
  }, 120_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    deployed.synth?.cleanup();
    await deployed.emulators?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return deployed;
}
