/**
 * A requester key rotated while the webhook still holds the old one. Each function caches its
 * secrets for up to 5 minutes, so after `put-secret-value` on the webhook's requester key a warm
 * webhook goes on signing with the old key for up to 5 minutes, while a worker that read its
 * keys after the rotation holds only the new one. A chat request the person sends a minute after
 * the rotation (told "Queued", the outcome promised) was then refused as "requester not proven"
 * and dead-lettered without a word to them. The worker accepts the previous version of the key
 * for ten minutes after the rotation (src/secrets/previous-keys.ts), and no longer. Driven
 * through the wiring the Lambdas use, reading the real Secrets Manager client from a stand-in server.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { PROOF_ATTRIBUTE, requesterProof } from '../../src/actions/proof.js';
import { parseActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { webhookDepsFromEnv, workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { admit } from '../../src/worker/admit.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import { TEST_POLICY } from '../webhook/harness.js';

const IDS = {
  api: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:api-AbCdEf',
  webhook: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:webhook-AbCdEf',
  webhookKey: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:wkey-AbCdEf',
  sweeperKey: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:skey-AbCdEf',
};

let sm: FakeSecretsManager;
let emulators: Emulators;
const clock = { now: 1_800_000_000_000 };
const policy = parsePolicy(TEST_POLICY);

beforeAll(async () => {
  [sm, emulators] = await Promise.all([startFakeSecretsManager({ now: () => clock.now }), startEmulators()]);
  vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', sm.url);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_REGION', 'eu-central-1');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all([sm?.close(), emulators?.stop()]);
});

it('accepts a chat request the webhook signs with its cached key a minute after the key was rotated', async () => {
  sm.values.set(IDS.api, JSON.stringify({ consoleApiKey: 'key' }));
  sm.values.set(IDS.webhook, JSON.stringify({ slackSigningSecret: 'signing', consoleReadOnlyApiKey: 'ro' }));
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-old');
  sm.values.set(IDS.sweeperKey, 'sweeper-requester-key');
  const env = {
    CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
    ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions',
    DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq',
    STATE_TABLE_NAME: emulators.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    WEBHOOK_REQUESTER_KEY_SECRET_ID: IDS.webhookKey,
    SWEEPER_REQUESTER_KEY_SECRET_ID: IDS.sweeperKey,
  };
  const options = { policy, clock: () => clock.now };
  const webhook = webhookDepsFromEnv({ ...env, AUTOPILOT_SECRET_ID: IDS.webhook }, options);
  const worker = workerDepsFromEnv({ ...env, AUTOPILOT_SECRET_ID: IDS.api }, options);

  // A warm webhook container: it read its secrets (and its requester key) at its last request.
  await webhook.secrets.get();
  clock.now += 60_000;
  // An operator rotates the webhook's requester key, as README says how.
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-new');
  clock.now += 60_000;
  // A worker container that starts now reads the new key.
  await worker.requesterKeys?.get();
  clock.now += 60_000;

  // A person's command, a minute later: the webhook signs it with the key it holds.
  const body = JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: new Date(clock.now).toISOString(),
    requestId: 'slack-after-rotation',
  });
  const proof = await webhook.signer?.proofFor('slack', body);
  const parsed = parseActionRequest(body);
  if (!parsed.ok) throw new Error(parsed.error);
  const record = (receives: number) => ({
    body,
    messageAttributes: {
      [PROOF_ATTRIBUTE]: {
        stringValue: proof,
        dataType: 'String',
        stringListValues: [],
        binaryListValues: [],
      },
    },
    attributes: { ApproximateReceiveCount: String(receives) },
  });
  // Its first delivery may come back once; by its second the worker has read the keys again.
  await admit(parsed.request, record(1), worker.requesterKeys, new Date(clock.now)).catch(() => undefined);
  clock.now += 6 * 60_000;
  expect(await admit(parsed.request, record(2), worker.requesterKeys, new Date(clock.now))).toBeUndefined();
});

it('no longer accepts the rotated-out key ten minutes after the rotation', async () => {
  sm.values.set(IDS.api, JSON.stringify({ consoleApiKey: 'key' }));
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-a');
  sm.values.set(IDS.sweeperKey, 'sweeper-requester-key');
  const env = {
    CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
    ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions',
    DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq',
    STATE_TABLE_NAME: emulators.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    WEBHOOK_REQUESTER_KEY_SECRET_ID: IDS.webhookKey,
    SWEEPER_REQUESTER_KEY_SECRET_ID: IDS.sweeperKey,
    AUTOPILOT_SECRET_ID: IDS.api,
  };
  const worker = workerDepsFromEnv(env, { policy, clock: () => clock.now });
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-b');
  clock.now += 10 * 60_000;
  const body = JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: new Date(clock.now).toISOString(),
    requestId: 'slack-long-after-rotation',
  });
  const parsed = parseActionRequest(body);
  if (!parsed.ok) throw new Error(parsed.error);
  const proof = requesterProof('webhook', 'webhook-requester-key-a', body);
  const record = {
    body,
    messageAttributes: {
      [PROOF_ATTRIBUTE]: {
        stringValue: proof,
        dataType: 'String',
        stringListValues: [],
        binaryListValues: [],
      },
    },
    attributes: { ApproximateReceiveCount: '2' },
  };
  expect(await admit(parsed.request, record, worker.requesterKeys, new Date(clock.now))).toMatchObject({
    rule: 'requester-not-proven',
  });
});
