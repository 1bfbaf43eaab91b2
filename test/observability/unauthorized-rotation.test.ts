/**
 * README "Rotating each secret" says to put the new Console key in the secret, then revoke the
 * old one: "the worker picks it up at its next 401". That 401 is answered by re-reading the
 * secret and the call succeeds with the new key, yet it was counted as ConsoleApiUnauthorized,
 * whose alarm (threshold 1, one period) pages on-call that "the key was revoked, or rotated
 * without updating the secret. Put a valid key in the secret" — after every correct rotation,
 * on every warm container. A 401 the re-read key cures is not a refused key; one that the
 * re-read key gets too (or with no key to re-read) is, and must still be counted.
 */
import { describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { consoleApiMetrics, createMetrics } from '../../src/observability/metrics.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { AutopilotSecretValues, SecretsProvider } from '../../src/secrets/secrets.js';
import { consoleClientFor } from '../../src/wiring/from-env.js';

const T0 = Date.parse('2026-11-23T10:00:00Z');

function capture() {
  const raw: string[] = [];
  const metrics = createMetrics({ service: 'worker', sink: (line) => raw.push(line), now: () => T0 });
  const named = (name: string) =>
    raw.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => name in line);
  return { metrics, named };
}

/** A secret whose stored key was rotated since this container cached the old one. */
function rotatedSecret(cachedKey: string, storedKey: string): SecretsProvider & { reads: number } {
  let current = cachedKey;
  const values = (): AutopilotSecretValues => ({ consoleApiKey: current, slackSigningSecret: '' });
  return {
    reads: 0,
    async get() {
      return values();
    },
    async refresh() {
      this.reads++;
      current = storedKey;
      return true;
    },
    rotates: true,
  };
}

describe('ConsoleApiUnauthorized', () => {
  it('is not counted for the 401 of a key rotated as the README says, which the re-read key cures', async () => {
    // The platform knows only the new key: the old one was revoked after the secret was updated.
    const sandbox = await startSandbox({ apiKeys: ['new-key'], rateLimits: false });
    try {
      const { metrics, named } = capture();
      const secrets = rotatedSecret('old-key', 'new-key');
      const client = consoleClientFor(
        'worker',
        { CONSOLE_API_BASE_URL: sandbox.url },
        secrets,
        { maxRetries: 0 },
        metrics,
      );
      await client.segments.list({ page: 1, limit: 1 });
      expect(secrets.reads).toBe(1);
      // The call went through with the rotated key: nothing for anyone to fix.
      expect(named('ConsoleApiLatency').map((l) => l.status)).toEqual([401, 200]);
      expect(named('ConsoleApiUnauthorized')).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('is still counted when the re-read key is refused too, or there is no key to re-read', async () => {
    const sandbox = await startSandbox({ apiKeys: ['new-key'], rateLimits: false });
    try {
      const { metrics, named } = capture();
      // The secret was never updated: the re-read brings the same revoked key.
      const stale = consoleClientFor(
        'worker',
        { CONSOLE_API_BASE_URL: sandbox.url },
        rotatedSecret('old-key', 'old-key'),
        { maxRetries: 0 },
        metrics,
      );
      await expect(stale.segments.list({ page: 1, limit: 1 })).rejects.toThrow();
      const afterStale = named('ConsoleApiUnauthorized').length;
      expect(afterStale).toBeGreaterThan(0);
      // A fixed key (no provider to ask again): its 401 is final.
      const fixed = createConsoleClient({
        baseUrl: sandbox.url,
        apiKey: 'wrong-key',
        maxRetries: 0,
        observe: consoleApiMetrics(metrics),
      });
      await expect(fixed.segments.list({ page: 1, limit: 1 })).rejects.toThrow();
      expect(named('ConsoleApiUnauthorized').length).toBeGreaterThan(afterStale);
    } finally {
      await sandbox.close();
    }
  });
});
