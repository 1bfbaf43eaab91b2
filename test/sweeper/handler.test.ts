/**
 * functions/sweeper.ts: the policy is validated when the module loads (an invalid one fails
 * the import with its zod path), and the handler runs a sweep from the environment alone,
 * against the sandbox and the emulators, with the time left from the Lambda context. The
 * function's clock is `Date.now`, faked here at the sandbox's time (the handler refuses a run
 * whose time is far from its clock), so no case depends on the machine's date.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../helpers/lambda.js';
import { BASE_POLICY, drainQueue, freshState, NOW, type Rig, startRig } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'sweeper-handler-'));
const saved = { ...process.env };

describe('the sweeper handler', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 300 });
  });
  afterAll(async () => {
    await rig.close();
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
    process.env = { ...saved };
    vi.resetModules();
  });

  it('fails to load with the zod path of an invalid policy', async () => {
    const file = join(dir, 'broken.json');
    const broken = structuredClone(BASE_POLICY) as { sweeper: { staleConfigs: Record<string, unknown> } };
    broken.sweeper.staleConfigs.maxPerRun = -1;
    writeFileSync(file, JSON.stringify(broken));
    process.env.AUTOPILOT_POLICY = file;
    await expect(import('../../functions/sweeper.js')).rejects.toThrow(/sweeper\.staleConfigs\.maxPerRun/);
  });

  async function environmentFor(state: Awaited<ReturnType<typeof freshState>>, baseUrl: string) {
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify(BASE_POLICY));
    Object.assign(process.env, {
      AUTOPILOT_POLICY: file,
      CONSOLE_API_BASE_URL: baseUrl,
      CONSOLE_API_KEY: 'sandbox-key',
      SWEEPER_REQUESTER_KEY: 'test-sweeper-key',
      STATE_TABLE_NAME: state.table.tableName,
      ACTIONS_QUEUE_URL: state.queueUrl,
      AWS_ENDPOINT_URL_SQS: rig.emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: rig.emulators.dynamodbEndpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'error',
    });
    delete process.env.AUTOPILOT_SECRET_ID;
  }

  it('runs a sweep built from the environment', async () => {
    const state = await freshState(rig);
    await environmentFor(state, rig.sandbox.url);
    const { handler } = await import('../../functions/sweeper.js');
    const summary = await handler(
      { time: new Date(NOW).toISOString() },
      lambdaContext({ timeoutMs: 60_000, functionName: 'autopilot-sweeper' }),
    );
    expect(summary.partial).toBe(false);
    expect(summary.events.newEvents).toBe(300);
    expect(summary.events.requests).toBeLessThanOrEqual(2); // the sandbox applies limit 1000: one page
    const bodies = await drainQueue(rig, state.queueUrl);
    expect(bodies.length).toBeGreaterThan(0);
  });

  it('fails the invocation when the events cannot be read, so the errors alarm fires', async () => {
    const state = await freshState(rig);
    // A port nobody listens on: every read is refused.
    await environmentFor(state, 'http://127.0.0.1:9');
    const { handler } = await import('../../functions/sweeper.js');
    await expect(
      handler(
        { time: new Date(NOW).toISOString() },
        lambdaContext({ timeoutMs: 60_000, functionName: 'autopilot-sweeper' }),
      ),
    ).rejects.toThrow(/sweep failed reading events/);
  });
});
