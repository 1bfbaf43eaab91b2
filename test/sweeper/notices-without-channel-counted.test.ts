/**
 * Event notices the sweeper cannot post for want of a channel are lost for good: the events are
 * behind the cursor once the run ends, and no later run derives those notices again. With the
 * sweeper's secret holding an empty `slackWebhookUrl` (the stack creates it so; an operator who set
 * only the worker's), or the secret not read at the run's start, the run logged an info line and
 * counted nothing an alarm reads. Now each lost notice counts in `SlackPostsFailed` (the metric the
 * `SlackPostsFailing` alarm sums over the three functions) and the run says so at warn.
 *
 * First case: functions/sweeper.ts as deployed, its secret and requester key read from (a stand-in
 * for) Secrets Manager, the bundled policy.json (its "tell the channel" rule notifies on
 * `experiment_*`), the sandbox over HTTP, dynalite; its log and metric lines captured from stdout.
 * The function's clock is `Date.now`, faked at the harness's time (no dependence on the machine's date).
 * Second case: the sweeper's handler whose secret read fails for the channel URL.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { lambdaContext } from '../helpers/lambda.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import { emfProblems } from '../observability/emf.js';
import {
  freshState,
  handleAtNow,
  makeSweeper,
  memoryLogger,
  NOW,
  type Rig,
  rulesOnlyPolicy,
  sortedLog,
  startRig,
} from './harness.js';

const SECRET_ID = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:autopilot-sweeper-AbCdEf';
const KEY_ID = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:autopilot-sweeper-key-AbCdEf';
const saved = { ...process.env };

let rig: Rig;
let secrets: FakeSecretsManager;
beforeAll(async () => {
  rig = await startRig({ eventCount: 0 });
  secrets = await startFakeSecretsManager({ now: () => NOW });
  // The read-only key set, the channel's URL left empty as the stack creates it.
  secrets.values.set(
    SECRET_ID,
    JSON.stringify({ consoleReadOnlyApiKey: 'sandbox-key', slackWebhookUrl: '' }),
  );
  secrets.values.set(KEY_ID, 'test-sweeper-key');
});
afterAll(async () => {
  await secrets?.close();
  await rig?.close();
});

/** `experiment_*` events logged in the minutes before NOW: what the "tell the channel" rule notifies. */
function experimentEvents(count: number): EventLike[] {
  return Array.from({ length: count }, (_, i) => ({
    timestamp: String(NOW - 600_000 + i * 1000),
    name: i % 2 === 0 ? 'experiment_started' : 'experiment_stopped',
  }));
}

function slackPostsFailed(lines: string[]): number {
  return lines
    .filter((l) => l.includes('"_aws"') && l.includes('"SlackPostsFailed"'))
    .reduce((sum, l) => {
      expect(emfProblems(l)).toEqual([]);
      const doc = JSON.parse(l) as { Service: string; SlackPostsFailed: number };
      expect(doc.Service).toBe('sweeper');
      return sum + doc.SlackPostsFailed;
    }, 0);
}

describe('the deployed sweeper with an empty slackWebhookUrl in its secret', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    process.env = { ...saved };
    vi.resetModules();
  });

  it('counts each event notice it cannot post in SlackPostsFailed and warns', async () => {
    const state = await freshState(rig);
    rig.sandbox.sandbox.addEvents(
      [0, 1, 2].map((i) => ({ timestamp: NOW - 600_000 + i * 1000, name: 'experiment_started' })),
    );
    Object.assign(process.env, {
      CONSOLE_API_BASE_URL: rig.sandbox.url,
      AUTOPILOT_SECRET_ID: SECRET_ID,
      SWEEPER_REQUESTER_KEY_SECRET_ID: KEY_ID,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
      STATE_TABLE_NAME: state.table.tableName,
      ACTIONS_QUEUE_URL: state.queueUrl,
      AWS_ENDPOINT_URL_SQS: rig.emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: rig.emulators.dynamodbEndpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'info',
    });
    for (const name of ['AUTOPILOT_POLICY', 'CONSOLE_API_KEY', 'SWEEPER_REQUESTER_KEY'])
      delete process.env[name];
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    });
    const { handler } = await import('../../functions/sweeper.js');

    const context = lambdaContext({ timeoutMs: 60_000, functionName: 'autopilot-sweeper' });
    const summary = await handler({ time: new Date(NOW).toISOString() }, context);

    expect(summary.rules.notifySkipped).toBe(3);
    expect(slackPostsFailed(lines)).toBe(3);
    const warned = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 'warn' && /notif/.test(l.message));
    expect(warned).toEqual([expect.objectContaining({ count: 3 })]);
  });
});

it('counts the notices of a run whose channel URL cannot be read', async () => {
  const state = await freshState(rig);
  const { logger, lines: logLines } = memoryLogger();
  const metricLines: string[] = [];
  const sweeper = makeSweeper(rig, state, {
    policy: rulesOnlyPolicy(rig),
    events: sortedLog(() => experimentEvents(2)),
    clock: () => NOW,
    logger,
    metrics: createMetrics({ service: 'sweeper', sink: (l) => metricLines.push(l), now: () => NOW }),
    channelUrl: () => Promise.reject(new Error('AccessDeniedException: not authorized to GetSecretValue')),
  });
  const summary = await handleAtNow(sweeper);

  expect(summary.rules.notifySkipped).toBe(2);
  expect(slackPostsFailed(metricLines)).toBe(2);
  const lost = logLines.find((l) => l.level === 'warn' && l.count === 2);
  expect(lost?.message).toMatch(/not posted/);
});
