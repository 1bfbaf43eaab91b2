/**
 * A sweeper whose secret holds empty fields (the stack creates it so; an upgrade to the sweeper's
 * own secret, or a fresh deployment, before an operator set it) refuses to read the event log.
 * README said `SweeperLagging` then fires; it reads `SweeperLag`, which a run emits only from the
 * cursor (how far behind the log it is), and a sweeper that never read the log has none: no lag
 * figure, so that alarm stays calm however long it lasts. What pages is `SweeperErrors`: every run
 * fails its invocation. This pins that, the behaviour README now tells.
 *
 * functions/sweeper.ts as deployed: its secret and its requester key read from (a stand-in for)
 * Secrets Manager, the sandbox over HTTP, dynalite; its metric lines captured from stdout. The
 * function's clock is `Date.now`, faked at the harness's time (no dependence on the machine's date).
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { lambdaContext } from '../helpers/lambda.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import { freshState, NOW, type Rig, startRig } from './harness.js';

const SECRET_ID = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:autopilot-sweeper-AbCdEf';
const KEY_ID = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:autopilot-sweeper-key-AbCdEf';
const saved = { ...process.env };

let rig: Rig;
let secrets: FakeSecretsManager;
beforeAll(async () => {
  rig = await startRig({ eventCount: 20 });
  secrets = await startFakeSecretsManager({ now: () => NOW });
  // As the stack creates it: the fields there, empty.
  secrets.values.set(SECRET_ID, JSON.stringify({ consoleReadOnlyApiKey: '', slackWebhookUrl: '' }));
  secrets.values.set(KEY_ID, 'test-sweeper-key');
});
afterAll(async () => {
  await secrets?.close();
  await rig?.close();
});
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

it('fails every run (SweeperErrors) and, with no cursor yet, emits no SweeperLag', async () => {
  const state = await freshState(rig);
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
    LOG_LEVEL: 'error',
  });
  for (const name of ['AUTOPILOT_POLICY', 'CONSOLE_API_KEY', 'SWEEPER_REQUESTER_KEY'])
    delete process.env[name];
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const { handler } = await import('../../functions/sweeper.js');

  // Three scheduled runs, 5 minutes apart: each fails its invocation, the figure SweeperErrors sums.
  for (const minutes of [0, 5, 10]) {
    const at = NOW + minutes * 60_000;
    vi.setSystemTime(at);
    const context = lambdaContext({ timeoutMs: 60_000, functionName: 'autopilot-sweeper' });
    await expect(handler({ time: new Date(at).toISOString() }, context)).rejects.toThrow(
      /sweep failed reading events/,
    );
  }
  const metrics = lines.filter((l) => l.includes('"_aws"'));
  expect(metrics.some((l) => l.includes('"EventsRead"'))).toBe(true); // each run reported itself
  expect(metrics.some((l) => l.includes('"SweeperLag"'))).toBe(false); // but never a lag
  expect(secrets.reads(SECRET_ID)).toBeGreaterThan(0);
});
