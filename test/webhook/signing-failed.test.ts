/**
 * The webhook vouches for every request it queues with its requester key (src/actions/proof.ts).
 * When it cannot make that proof (the key's secret unreadable, no key held), nothing is sent to
 * SQS at all, yet the person was answered "the actions queue could not be reached" and the log
 * line said `queue_unreachable`: operators went looking at SQS. It is now told and logged as what
 * it is, a secrets problem of the webhook (`signing_failed`, at error level), never showing a
 * secret. The key's secret is read through the real Secrets Manager provider from a stand-in
 * where it is missing; the queue is fauxqs; the click goes through the worker's real question.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { secretsManagerProvider } from '../../src/secrets/secrets.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, questionWebhook } from '../worker/questions.js';
import { buildApp } from './harness.js';
import { drainQueue } from './queue-helpers.js';

/** What the Secrets Manager stand-in holds besides: a value that must never be shown. */
const OTHER_KEY = 'sweeper-requester-key-must-not-show-0123456789';

const bench = benchResetEachTest();
let sm: FakeSecretsManager;
beforeAll(async () => {
  sm = await startFakeSecretsManager();
  sm.values.set('sweeper-requester-key', OTHER_KEY);
});
afterAll(async () => {
  await sm?.close();
});

/**
 * The webhook's signer as deployed (`createRequesterSigner` over the secrets), reading its key
 * from a secret id the stand-in does not hold: every read fails as Secrets Manager's would.
 */
function unreadableKeySigner() {
  const secrets = secretsManagerProvider({
    requesterKeyIds: { webhook: 'webhook-requester-key-deleted' },
    client: new SecretsManagerClient({
      endpoint: sm.url,
      region: 'eu-central-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    now: () => bench.clock.now.getTime(),
  });
  return createRequesterSigner(async () => (await secrets.get()).requesterKeys ?? {});
}

const at = () => ({ timestamp: Math.floor(bench.clock.now.getTime() / 1000) });

describe('a request the webhook cannot sign', () => {
  it('is answered as a signing (secrets) problem, not as an unreachable queue, and logged as an error', async () => {
    const { app, requestLines } = buildApp({
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      table: bench.table,
      signer: unreadableKeySigner(),
      now: () => bench.clock.now.getTime(),
    });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'approve trg_sf1 ph_1' }), at()),
    );
    expect(res.status).toBe(200);
    const said = JSON.stringify(await res.json());
    expect(said).toContain('was *not* queued');
    expect(said).toContain('could not sign');
    expect(said).not.toMatch(/queue could not be reached|did not confirm/);
    const line = requestLines().at(-1)!;
    expect(line).toMatchObject({
      level: 'error',
      outcome: 'signing_failed',
      command: 'approve',
      status: 200,
      error: { name: 'RequesterSignerError', cause: { name: 'SecretsError' } },
    });
    expect(`${said}${JSON.stringify(line)}`).not.toContain(OTHER_KEY);
    expect(await drainQueue(bench.queue.sqs, bench.queue.queueUrl)).toEqual([]);
  });

  it('says the same for a signer that holds no key for Slack requests', async () => {
    const { app, requestLines } = buildApp({
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      table: bench.table,
      signer: createRequesterSigner(async () => ({ sweeper: OTHER_KEY })),
      now: () => bench.clock.now.getTime(),
    });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'archive cfg_sf2' }), at()),
    );
    const said = JSON.stringify(await res.json());
    expect(said).toContain('could not sign');
    expect(requestLines().at(-1)).toMatchObject({ level: 'error', outcome: 'signing_failed' });
    expect(`${said}${JSON.stringify(requestLines())}`).not.toContain(OTHER_KEY);
    expect(await drainQueue(bench.queue.sqs, bench.queue.queueUrl)).toEqual([]);
  });

  it('answers an Approve click the same way, and leaves the question open for a later click', async () => {
    const value = await askQuestion(bench, 'trg_sf3', 'sf-asked-3');
    const click = async (overrides: Parameters<typeof questionWebhook>[1], path: string) => {
      const { app, requestLines } = questionWebhook(bench, {
        now: () => bench.clock.now.getTime(),
        ...overrides,
      });
      const payload = blockActionsPayload({
        actionId: APPROVE_ACTION_ID,
        value,
        userId: 'U0ADMIN',
        responseUrl: bench.slack.url(path),
      });
      const res = await app.request(signedRequest('/slack/interactions', interactionBody(payload), at()));
      expect(res.status).toBe(200);
      return {
        line: requestLines().at(-1)!,
        replies: bench.slack.posts.filter((p) => p.path === path).map((p) => JSON.stringify(p.body)),
      };
    };
    const failed = await click({ signer: unreadableKeySigner() }, '/actions/T0001/1/sf3');
    expect(failed.line).toMatchObject({ level: 'error', outcome: 'signing_failed' });
    expect(failed.replies.join('')).toContain('could not sign');
    expect(failed.replies.join('')).not.toContain('queue could not be reached');
    expect(failed.replies.join('')).not.toContain(OTHER_KEY);
    expect((await bench.receive(10, 0)).Records).toEqual([]);
    // Nothing was sent: the question is open again, and a click with the key restored is taken.
    expect((await click({}, '/actions/T0001/2/sf3')).line.outcome).toBe('queued');
  });
});
