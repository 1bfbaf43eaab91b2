/**
 * 2162f62 lets the worker accept a requester key's previous version for ten minutes after its
 * rotation, because a warm webhook goes on signing with its cached key. A warm webhook signs
 * every command it queues meanwhile, and the worker admits a batch's records concurrently: the
 * first record to try the previous key starts reading it, and every other record that asks while
 * that read is under way was told there is no previous key. Those commands, as proven as the
 * first, were dead-lettered as "requester not proven" on a receive that is judged for good, and
 * the person told nothing after "Queued". Driven through the wiring the Lambda uses, with the
 * real Secrets Manager client reading a stand-in server.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { PROOF_ATTRIBUTE, requesterProof } from '../../src/actions/proof.js';
import { parseActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { admit } from '../../src/worker/admit.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import { TEST_POLICY } from '../webhook/harness.js';

const IDS = {
  api: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:api-AbCdEf',
  webhookKey: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:wkey-AbCdEf',
  sweeperKey: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:skey-AbCdEf',
};

let sm: FakeSecretsManager;
let emulators: Emulators;
const clock = { now: 1_800_000_000_000 };

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

function signedRecord(requestId: string) {
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
  // The warm webhook's cached key: the one rotated out two minutes ago.
  const proof = requesterProof('webhook', 'webhook-requester-key-old', body);
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
    // A receive that is judged for good (no "come back later" for a key not read yet).
    attributes: { ApproximateReceiveCount: '2' },
  };
  return { request: parsed.request, record };
}

it('admits every record of a batch signed with the key rotated out two minutes ago', async () => {
  sm.values.set(IDS.api, JSON.stringify({ consoleApiKey: 'key' }));
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-old');
  sm.values.set(IDS.sweeperKey, 'sweeper-requester-key');
  clock.now += 60_000;
  sm.values.set(IDS.webhookKey, 'webhook-requester-key-new');
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
  const worker = workerDepsFromEnv(env, { policy: parsePolicy(TEST_POLICY), clock: () => clock.now });
  // A worker container that read its keys after the rotation: it holds only the new one.
  await worker.requesterKeys?.get();
  clock.now += 60_000;

  const batch = ['slack-a', 'slack-b', 'slack-c'].map(signedRecord);
  const refusals = await Promise.all(
    batch.map(({ request, record }) => admit(request, record, worker.requesterKeys, new Date(clock.now))),
  );
  expect(refusals).toEqual([undefined, undefined, undefined]);
});
