/**
 * `autopilot sweep --dry-run` against a deployment (not `--local`): the operator names the
 * sweeper's secret (AUTOPILOT_SECRET_ID) for its read key. A dry run sends nothing, so it must
 * neither need nor read a requester key, while a function started that way (a secret named, a
 * local `SWEEPER_REQUESTER_KEY` beside it) is refused at start (test/webhook/from-env.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, type TestStack } from '../helpers/local-stack.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';

const SECRET_ID = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:autopilot-sweeper-AbCdEf';
const pinned = new Date('2031-03-30T09:00:00Z');

let t: TestStack;
let secrets: FakeSecretsManager;
beforeAll(async () => {
  t = await bootTestStack('sweep-dry-run-secrets-manager');
  secrets = await startFakeSecretsManager({ now: () => pinned.getTime() });
  secrets.values.set(SECRET_ID, JSON.stringify({ consoleReadOnlyApiKey: 'sandbox-key' }));
}, 60_000);
afterAll(async () => {
  await secrets?.close();
  await t?.stop();
});

describe('sweep --dry-run with the sweeper secret from Secrets Manager', () => {
  it('plans without any requester key', async () => {
    const e = t.stack.endpoints;
    const io = captureIo({
      env: {
        AUTOPILOT_POLICY: t.stack.policyPath,
        AUTOPILOT_SECRET_ID: SECRET_ID,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
        AWS_ENDPOINT_URL_DYNAMODB: e.dynamodbEndpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        CONSOLE_API_BASE_URL: e.consoleApiBaseUrl,
        STATE_TABLE_NAME: e.tableName,
      },
      cwd: t.dir,
      now: () => pinned,
    });
    const code = await runCli(['sweep', '--dry-run', '--json'], io.io);
    expect(code, io.err()).toBe(0);
    expect(JSON.parse(io.out())).toHaveProperty('summary');
    expect(secrets.reads(SECRET_ID)).toBeGreaterThan(0);
  });
});
