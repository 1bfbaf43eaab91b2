/**
 * A request the webhook could not sign was answered "trying again helps only once it is fixed",
 * as if its secrets were always broken. But `signing_failed` also covers a read of the requester
 * key that was merely slow (the webhook's deadline passed while it ran): that read goes on, the
 * key is cached when it ends, and the next try is queued. The reply now says what is true of
 * both: the key could not be read in time, trying again may work, and only when it fails again
 * do the secrets need an operator. The key is read by the real Secrets Manager provider from the
 * stand-in, its first read held past the deadline (the injected clock moves; nothing waits in
 * real time); the queue is fauxqs, the click goes through the worker's real question.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
import { drainQueue } from './queue-helpers.js';

/** The webhook's 2.5 s budget, counted from arrival (WebhookDeps.deadlineMs). */
const DEADLINE_MS = 2_500;
const KEY_ID = 'webhook-requester-key';

const bench = benchResetEachTest();
let sm: FakeSecretsManager;
beforeAll(async () => {
  sm = await startFakeSecretsManager();
  sm.values.set(KEY_ID, bench.requesterKeys.webhook!);
});
afterAll(async () => {
  await sm?.close();
});
beforeEach(() => {
  bench.slack.posts.length = 0;
});

/**
 * The webhook's signer as deployed, over the real provider: its first read of the key's secret
 * moves the clock just past the deadline of the request that asked, and goes on when `finish()`
 * is called (a slow Secrets Manager); later reads go straight through.
 */
function slowFirstReadSigner(startedAt: number) {
  const real = new SecretsManagerClient({
    endpoint: sm.url,
    region: 'eu-central-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let reads = 0;
  const client = {
    send: async (command: Parameters<SecretsManagerClient['send']>[0]) => {
      if (reads++ === 0) {
        bench.clock.now = new Date(startedAt + DEADLINE_MS + 1);
        await finished;
      }
      return real.send(command as never);
    },
  } as Pick<SecretsManagerClient, 'send'>;
  const secrets = secretsManagerProvider({
    requesterKeyIds: { webhook: KEY_ID },
    client,
    now: () => bench.clock.now.getTime(),
  });
  const signer = createRequesterSigner(async () => (await secrets.get()).requesterKeys ?? {});
  return { signer, finish: () => finish(), cached: () => secrets.cached?.() };
}

/** Waits (on the event loop, no timer) until the late read has put the key in the cache. */
async function untilCached(cached: () => unknown) {
  for (let i = 0; i < 1_000 && !cached(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(cached()).toBeDefined();
}

const at = () => ({ timestamp: Math.floor(bench.clock.now.getTime() / 1000) });

describe('a request not signed because the key was read too slowly', () => {
  it('is not told that trying again helps only once something is fixed, and trying again is queued', async () => {
    const slow = slowFirstReadSigner(bench.clock.now.getTime());
    const { app, requestLines } = questionWebhook(bench, {
      signer: slow.signer,
      now: () => bench.clock.now.getTime(),
    });
    const command = async () => {
      const res = await app.request(
        signedRequest('/slack/commands', commandBody({ text: 'approve trg_1 ph_1' }), at()),
      );
      expect(res.status).toBe(200);
      return JSON.stringify(await res.json());
    };

    const said = await command();
    expect(requestLines().at(-1)).toMatchObject({ level: 'error', outcome: 'signing_failed' });
    expect(said).toContain('was *not* queued');
    expect(said).toContain('could not be read in time');
    expect(said).not.toMatch(/only once it is fixed|for an operator to fix/);
    expect(said).toContain('Try again in a moment');
    expect(said).toContain('if it fails again');
    expect(await drainQueue(bench.queue.sqs, bench.queue.queueUrl)).toEqual([]);

    // The slow read ends after the answer; the person tries again, as told, and it is queued.
    slow.finish();
    await untilCached(slow.cached);
    const again = await command();
    expect(requestLines().at(-1)).toMatchObject({ outcome: 'queued' });
    expect(again).toContain('Queued');
    expect(await drainQueue(bench.queue.sqs, bench.queue.queueUrl)).toHaveLength(1);
  });

  it('tells an Approve click the same, and the next click is taken', async () => {
    const value = await askQuestion(bench, 'trg_ssr2', 'ssr-asked-2');
    const slow = slowFirstReadSigner(bench.clock.now.getTime());
    const click = async (path: string) => {
      const { app, requestLines } = questionWebhook(bench, {
        signer: slow.signer,
        now: () => bench.clock.now.getTime(),
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
        outcome: requestLines().at(-1)?.outcome,
        said: bench.slack.posts
          .filter((p) => p.path === path)
          .map((p) => JSON.stringify(p.body))
          .join(''),
      };
    };

    const failed = await click('/actions/T0001/1/ssr2');
    expect(failed.outcome).toBe('signing_failed');
    expect(failed.said).toContain('could not be read in time');
    expect(failed.said).not.toMatch(/for an operator to fix/);
    expect(failed.said).toContain('The question stays open. Click again in a moment');
    expect(failed.said).toContain('if it fails again');

    slow.finish();
    await untilCached(slow.cached);
    expect((await click('/actions/T0001/2/ssr2')).outcome).toBe('queued');
  });
});
