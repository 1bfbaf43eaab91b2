/**
 * Rotation everywhere. The webhook, the worker and the sweeper are built by the one wiring
 * module from the environment a Lambda gets (`AUTOPILOT_SECRET_ID` and the requester key
 * secrets), read through the real Secrets Manager client from a stand-in server. After a key is
 * rotated, a 401 from the Console API makes each re-read its secret (at most once a minute) and
 * succeed with the new key; a failed Slack signature does the same in the webhook.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROOF_ATTRIBUTE, requesterProof } from '../../src/actions/proof.js';
import { parseActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import {
  consoleClientFor,
  sweeperDepsFromEnv,
  webhookDepsFromEnv,
  workerDepsFromEnv,
} from '../../src/wiring/from-env.js';
import { admit } from '../../src/worker/admit.js';
import { RetryLater } from '../../src/worker/errors.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { TEST_POLICY } from '../webhook/harness.js';

const IDS = {
  api: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:api-AbCdEf',
  webhook: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:webhook-AbCdEf',
  sweeper: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:sweeper-AbCdEf',
  webhookKey: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:wkey-AbCdEf',
  sweeperKey: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:skey-AbCdEf',
};

let sm: FakeSecretsManager;
let sandbox: RunningSandbox;
let emulators: Emulators;
let env: Record<string, string>;
const clock = { now: 1_800_000_000_000 };
const policy = parsePolicy(TEST_POLICY);

beforeAll(async () => {
  [sm, sandbox, emulators] = await Promise.all([
    startFakeSecretsManager(),
    // Only the rotated keys are valid: the functions start out holding the old ones.
    startSandbox({ apiKeys: ['key-new'], readOnlyApiKeys: ['read-only-new'], rateLimits: false }),
    // The worker's mutations take their turn from the budget shared in the state table.
    startEmulators(),
  ]);
  vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', sm.url);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_REGION', 'eu-central-1');
  env = {
    CONSOLE_API_BASE_URL: sandbox.url,
    ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions',
    DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq',
    STATE_TABLE_NAME: emulators.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    WEBHOOK_REQUESTER_KEY_SECRET_ID: IDS.webhookKey,
    SWEEPER_REQUESTER_KEY_SECRET_ID: IDS.sweeperKey,
  };
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all([sm?.close(), sandbox?.close(), emulators?.stop()]);
});
beforeEach(() => {
  sm.values.set(IDS.api, JSON.stringify({ consoleApiKey: 'key-old', slackWebhookUrl: '' }));
  sm.values.set(
    IDS.webhook,
    JSON.stringify({ slackSigningSecret: 'signing-old', consoleReadOnlyApiKey: 'read-only-old' }),
  );
  sm.values.set(IDS.sweeper, JSON.stringify({ consoleReadOnlyApiKey: 'read-only-old', slackWebhookUrl: '' }));
  sm.values.set(IDS.webhookKey, 'webhook-requester-key');
  sm.values.set(IDS.sweeperKey, 'sweeper-requester-key');
});

const rotate = (id: string, value: object) => {
  sm.values.set(id, JSON.stringify(value));
  // Rotation happens minutes after the functions first read their secrets.
  clock.now += 2 * 60_000;
};
const phaseOf = (trigger: string) => sandbox.sandbox.state.triggers.get(trigger)?.currentPhaseID as string;

describe('after a rotation', () => {
  it('the worker re-reads its secret on a 401 and mutates with the new key', async () => {
    const deps = workerDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.api },
      { policy, clock: () => clock.now },
    );
    const before = sm.reads(IDS.api);
    // Warm: the first call reads the (old) key, as a container does at its first message.
    await expect(
      deps.client.releasePipelineTriggers.approve('trg_2', { phaseID: phaseOf('trg_2') }),
    ).rejects.toThrow(/401/);
    rotate(IDS.api, { consoleApiKey: 'key-new' });
    await deps.client.releasePipelineTriggers.approve('trg_2', { phaseID: phaseOf('trg_2') });
    expect(sm.reads(IDS.api) - before).toBe(2);
  });

  it('the sweeper reads events with its read-only key and re-reads it on a 401', async () => {
    const deps = sweeperDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.sweeper },
      { policy, clock: () => clock.now },
    );
    await expect(deps.events.list({ page: 1, limit: 5 })).rejects.toThrow(/401/);
    rotate(IDS.sweeper, { consoleReadOnlyApiKey: 'read-only-new' });
    const before = sandbox.sandbox.requests.length;
    const page = await deps.events.list({ page: 1, limit: 5 });
    expect(page.data.length).toBeGreaterThan(0);
    // The cached old key is refused once; the secret is read again and the new key is used.
    expect(sandbox.sandbox.requests.slice(before).map((r) => r.status)).toEqual([401, 200]);
  });

  it('the sweeper given the shared secret of an older deployment (a full key only) still reads events with it', async () => {
    const deps = sweeperDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.api },
      { policy, clock: () => clock.now },
    );
    await expect(deps.events.list({ page: 1, limit: 5 })).rejects.toThrow(/401/);
    rotate(IDS.api, { consoleApiKey: 'key-new' });
    const page = await deps.events.list({ page: 1, limit: 5 });
    expect(page.data.length).toBeGreaterThan(0);
  });

  it('the webhook reads with its read-only key and re-reads it on a 401', async () => {
    const deps = webhookDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.webhook },
      { policy, clock: () => clock.now },
    );
    await expect(deps.console.segments.list({ page: 1, limit: 1 })).rejects.toThrow(/401/);
    rotate(IDS.webhook, { slackSigningSecret: 'signing-old', consoleReadOnlyApiKey: 'read-only-new' });
    await deps.console.segments.list({ page: 1, limit: 1 });
    expect(sandbox.sandbox.requests.at(-1)?.status).toBe(200);
    // The key it holds cannot mutate: the platform answers 403 (it never tries, and its client has
    // no mutations; the whole client with the webhook's key and secrets proves the key).
    const client = consoleClientFor('webhook', { ...env, AUTOPILOT_SECRET_ID: IDS.webhook }, deps.secrets);
    await expect(
      client.releasePipelineTriggers.approve('trg_4', { phaseID: phaseOf('trg_4') }),
    ).rejects.toThrow(/403/);
  });

  it('re-reads at most once a minute however many 401s arrive', async () => {
    const deps = workerDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.api },
      { policy, clock: () => clock.now },
    );
    await expect(deps.client.releasePipelineTriggers.approve('trg_3', { phaseID: 'ph_1' })).rejects.toThrow(
      /401/,
    );
    rotate(IDS.api, { consoleApiKey: 'key-still-wrong' });
    const before = sm.reads(IDS.api);
    for (let i = 0; i < 5; i++) {
      await expect(deps.client.releasePipelineTriggers.approve('trg_3', { phaseID: 'ph_1' })).rejects.toThrow(
        /401/,
      );
    }
    expect(sm.reads(IDS.api) - before).toBe(1);
  });

  it('a function whose secret lacks what it needs says which field, never a value', async () => {
    sm.values.set(
      IDS.webhook,
      JSON.stringify({ slackSigningSecret: 'signing-old', consoleReadOnlyApiKey: '' }),
    );
    const deps = webhookDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.webhook },
      { policy, clock: () => clock.now },
    );
    await expect(deps.secrets.get()).rejects.toThrow(
      `secret ${IDS.webhook} lacks "consoleReadOnlyApiKey" or "consoleApiKey"`,
    );
  });

  it('the webhook re-reads the signing secret after a failed signature and accepts the new one', async () => {
    const deps = webhookDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.webhook },
      { policy, clock: () => clock.now },
    );
    const app = createWebhookApp({ ...deps, now: () => clock.now });
    const help = (secret: string) =>
      app.request(
        signedRequest('/slack/commands', commandBody({ text: 'help' }), {
          secret,
          timestamp: Math.floor(clock.now / 1000),
        }),
      );
    expect((await help('signing-old')).status).toBe(200);
    rotate(IDS.webhook, { slackSigningSecret: 'signing-new', consoleReadOnlyApiKey: 'read-only-new' });
    expect((await help('signing-new')).status).toBe(200);
    expect((await help('signing-old')).status).toBe(401);
  });
});

describe('a requester key rotated moments before a message signed with it arrives', () => {
  it('comes back once (the keys are read again by then) rather than be refused, and a forgery is still refused', async () => {
    const deps = workerDepsFromEnv(
      { ...env, AUTOPILOT_SECRET_ID: IDS.api },
      { policy, clock: () => clock.now },
    );
    await deps.requesterKeys?.get(); // this container read its keys (its first message)
    clock.now += 10_000;
    sm.values.set(IDS.webhookKey, 'webhook-requester-key-new'); // rotated; the webhook signs with it
    const message = (key: string, receives: number) => {
      const body = JSON.stringify({
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'slack', id: 'U0ADMIN' },
        requestedAt: new Date(clock.now).toISOString(),
        requestId: `slack-rotation-${key}`,
      });
      const parsed = parseActionRequest(body);
      if (!parsed.ok) throw new Error(parsed.error);
      const proof = { stringValue: requesterProof('webhook', key, body), dataType: 'String' };
      const record = {
        body,
        messageAttributes: { [PROOF_ATTRIBUTE]: { ...proof, stringListValues: [], binaryListValues: [] } },
        attributes: { ApproximateReceiveCount: String(receives) },
      };
      return () => admit(parsed.request, record, deps.requesterKeys, new Date(clock.now));
    };
    clock.now += 20_000; // within the minute in which the keys may not be read again
    await expect(message('webhook-requester-key-new', 1)()).rejects.toBeInstanceOf(RetryLater);
    clock.now += 6 * 60_000; // the visibility timeout: the message comes back
    expect(await message('webhook-requester-key-new', 2)()).toBeUndefined();
    expect(await message('a-key-nobody-holds', 2)()).toMatchObject({ rule: 'requester-not-proven' });
  });
});
