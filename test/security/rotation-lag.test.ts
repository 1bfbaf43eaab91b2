/**
 * A requester key rotated while the webhook still holds the old one. Each function caches its
 * secrets for up to 5 minutes, so after `put-secret-value` on the webhook's requester key a warm
 * webhook goes on signing with the old key for up to 5 minutes, while a worker that read its
 * keys after the rotation holds only the new one. A chat request the person sends a minute after
 * the rotation (told "Queued", the outcome promised) was then refused as "requester not proven"
 * and dead-lettered without a word to them. The worker accepts the previous version of the key
 * for ten minutes after the rotation (src/secrets/previous-keys.ts), for every record of a batch
 * checked at once, and no longer. Driven through the wiring the Lambdas use, reading the real
 * Secrets Manager client from a stand-in server.
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

/** The functions' environment on Lambda (the secrets by id), `extra` added. */
function lambdaEnv(extra: Record<string, string>) {
  return {
    CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
    ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions',
    DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq',
    STATE_TABLE_NAME: emulators.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    WEBHOOK_REQUESTER_KEY_SECRET_ID: IDS.webhookKey,
    SWEEPER_REQUESTER_KEY_SECRET_ID: IDS.sweeperKey,
    ...extra,
  };
}

/** Fresh secrets: the API key, the webhook's, and both requester keys (the webhook's is `webhookKey`). */
function putSecrets(webhookKey: string) {
  sm.values.set(IDS.api, JSON.stringify({ consoleApiKey: 'key' }));
  sm.values.set(IDS.webhook, JSON.stringify({ slackSigningSecret: 'signing', consoleReadOnlyApiKey: 'ro' }));
  sm.values.set(IDS.webhookKey, webhookKey);
  sm.values.set(IDS.sweeperKey, 'sweeper-requester-key');
}

const newWorker = () =>
  workerDepsFromEnv(lambdaEnv({ AUTOPILOT_SECRET_ID: IDS.api }), { policy, clock: () => clock.now });

/** A person's chat request signed with `proof(body)`, as its SQS record on its `receives`-th delivery. */
async function chatRecord(
  requestId: string,
  proof: (body: string) => Promise<string | undefined> | string | undefined,
) {
  const body = JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: `ph_${requestId}`,
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: new Date(clock.now).toISOString(),
    requestId,
  });
  const parsed = parseActionRequest(body);
  if (!parsed.ok) throw new Error(parsed.error);
  const stringValue = await proof(body);
  const record = (receives: number) => ({
    body,
    messageAttributes: {
      [PROOF_ATTRIBUTE]: { stringValue, dataType: 'String', stringListValues: [], binaryListValues: [] },
    },
    attributes: { ApproximateReceiveCount: String(receives) },
  });
  return { request: parsed.request, record };
}

it('accepts a chat request the webhook signs with its cached key a minute after the key was rotated', async () => {
  putSecrets('webhook-requester-key-old');
  const webhook = webhookDepsFromEnv(lambdaEnv({ AUTOPILOT_SECRET_ID: IDS.webhook }), {
    policy,
    clock: () => clock.now,
  });
  const worker = newWorker();
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
  const { request, record } = await chatRecord('slack-after-rotation', (body) =>
    webhook.signer?.proofFor('slack', body),
  );
  // Its first delivery may come back once; by its second the worker has read the keys again.
  await admit(request, record(1), worker.requesterKeys, new Date(clock.now)).catch(() => undefined);
  clock.now += 6 * 60_000;
  expect(await admit(request, record(2), worker.requesterKeys, new Date(clock.now))).toBeUndefined();
});

it('admits every record of a batch signed with the key rotated out two minutes ago', async () => {
  putSecrets('webhook-requester-key-old');
  clock.now += 60_000;
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-new');
  const worker = newWorker();
  // A worker container that read its keys after the rotation: it holds only the new one.
  await worker.requesterKeys?.get();
  clock.now += 60_000;
  // The warm webhook's cached key signs them; each receive is judged for good.
  const batch = await Promise.all(
    ['slack-a', 'slack-b', 'slack-c'].map((id) =>
      chatRecord(id, (body) => requesterProof('webhook', 'webhook-requester-key-old', body)),
    ),
  );
  const refusals = await Promise.all(
    batch.map(({ request, record }) => admit(request, record(2), worker.requesterKeys, new Date(clock.now))),
  );
  expect(refusals).toEqual([undefined, undefined, undefined]);
});

it('no longer accepts the rotated-out key ten minutes after the rotation', async () => {
  putSecrets('webhook-requester-key-a');
  const worker = newWorker();
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-b');
  clock.now += 10 * 60_000;
  const { request, record } = await chatRecord('slack-long-after-rotation', (body) =>
    requesterProof('webhook', 'webhook-requester-key-a', body),
  );
  expect(await admit(request, record(2), worker.requesterKeys, new Date(clock.now))).toMatchObject({
    rule: 'requester-not-proven',
  });
});
