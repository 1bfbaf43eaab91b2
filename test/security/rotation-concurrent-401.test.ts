/**
 * 85c48a8 stopped counting the 401 a re-read key cures, so that a rotation done as README says
 * (new key in the secret, then the old one revoked) no longer pages on-call through
 * ConsoleApiUnauthorized (threshold 1). But a worker runs a batch's records concurrently: when
 * two calls in flight with the old key get their 401 together, the first re-reads the secret and
 * the second's re-read is refused as "too soon" (at most once a minute) and it tries again at
 * once with the cached old key: a second 401, counted, and the alarm pages after a correct
 * rotation. A re-read under way is the one the second call must wait for.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { type SecretsProvider, secretsManagerProvider } from '../../src/secrets/secrets.js';
import { consoleClientFor } from '../../src/wiring/from-env.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';

const SECRET = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:api-AbCdEf';
const clock = { now: Date.parse('2026-11-23T10:00:00Z') };

let sm: FakeSecretsManager;
beforeAll(async () => {
  sm = await startFakeSecretsManager({ now: () => clock.now });
});
afterAll(async () => {
  await sm?.close();
});

describe('ConsoleApiUnauthorized during a rotation', () => {
  it('is not counted for two concurrent calls whose 401 the re-read key cures', async () => {
    const sandbox = await startSandbox({ apiKeys: ['new-key'], rateLimits: false });
    try {
      const raw: string[] = [];
      const metrics = createMetrics({ service: 'worker', sink: (l) => raw.push(l), now: () => clock.now });
      const named = (name: string) =>
        raw.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => name in l);

      sm.values.set(SECRET, JSON.stringify({ consoleApiKey: 'old-key' }));
      const client = new SecretsManagerClient({
        endpoint: sm.url,
        region: 'eu-central-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      // The re-read after the rotation answers only once the second call has asked to re-read too
      // (both 401s came back together), as a Secrets Manager round trip does under a batch.
      let gate: Promise<void> = Promise.resolve();
      let open: () => void = () => {};
      const slowClient = {
        send: async (command: Parameters<SecretsManagerClient['send']>[0]) => {
          await gate;
          return client.send(command as never);
        },
      };
      const provider = secretsManagerProvider({
        secretId: SECRET,
        client: slowClient as unknown as SecretsManagerClient,
        now: () => clock.now,
      });
      let refreshes = 0;
      const secrets: SecretsProvider = {
        ...provider,
        get: () => provider.get(),
        refresh: () => {
          refreshes++;
          if (refreshes === 2) setImmediate(open);
          return provider.refresh();
        },
      };
      // A warm container read the old key two minutes ago; then the secret got the new one and
      // the old key was revoked (README's rotation).
      await secrets.get();
      clock.now += 2 * 60_000;
      sm.values.set(SECRET, JSON.stringify({ consoleApiKey: 'new-key' }));
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });

      const api = consoleClientFor(
        'worker',
        { CONSOLE_API_BASE_URL: sandbox.url },
        secrets,
        { maxRetries: 0 },
        metrics,
      );
      const calls = await Promise.allSettled([
        api.segments.list({ page: 1, limit: 1 }),
        api.segments.list({ page: 1, limit: 1 }),
      ]);
      // Both went through with the rotated key: nothing for anyone to fix.
      expect(calls.map((c) => c.status)).toEqual(['fulfilled', 'fulfilled']);
      expect(named('ConsoleApiUnauthorized')).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
