/**
 * The secrets cache when Secrets Manager struggles (throttled, unreachable): a value read
 * before stays in use past its TTL rather than fail every caller, and neither `get` past the
 * TTL nor `refresh` (after a bad signature or a 401) asks again more than once a minute, failed
 * reads included. Injected clock; the client is a stand-in that fails on demand.
 */
import { expect, it } from 'vitest';
import { secretsManagerProvider } from '../../src/secrets/secrets.js';

function flakyClient() {
  let calls = 0;
  let failing = false;
  return {
    calls: () => calls,
    fail: (on: boolean) => {
      failing = on;
    },
    client: {
      send: async () => {
        calls++;
        if (failing) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
        return {
          SecretString: JSON.stringify({
            consoleApiKey: 'key-0123456789',
            slackSigningSecret: 'signing-0123456789',
          }),
        };
      },
    } as never,
  };
}

it('re-reads at most once a minute for a flood of refreshes, even while every read fails', async () => {
  let clock = Date.parse('2026-11-23T10:00:00Z');
  const sm = flakyClient();
  const secrets = secretsManagerProvider({ secretId: 'autopilot', client: sm.client, now: () => clock });
  await secrets.get();
  clock += 61_000;
  sm.fail(true);
  // Twenty forged requests in the same second, each failing its signature check.
  for (let i = 0; i < 20; i++) await secrets.refresh().catch(() => false);
  expect(sm.calls() - 1).toBe(1);
  clock += 60_000;
  await secrets.refresh().catch(() => false);
  expect(sm.calls() - 1).toBe(2);
});

it('keeps the value it read when a read past the TTL fails, and asks again only a minute later', async () => {
  let clock = Date.parse('2026-11-23T10:00:00Z');
  const sm = flakyClient();
  const secrets = secretsManagerProvider({ secretId: 'autopilot', client: sm.client, now: () => clock });
  await secrets.get();
  clock += 5 * 60_000 + 1;
  sm.fail(true);
  const seen: string[] = [];
  for (let i = 0; i < 10; i++) seen.push((await secrets.get()).slackSigningSecret);
  expect(seen).toEqual(Array(10).fill('signing-0123456789'));
  expect(sm.calls() - 1).toBe(1);
  clock += 60_000;
  sm.fail(false);
  await secrets.get();
  expect(sm.calls() - 1).toBe(2);
});

it('fails the caller when nothing was ever read', async () => {
  const sm = flakyClient();
  sm.fail(true);
  const secrets = secretsManagerProvider({ secretId: 'autopilot', client: sm.client, now: () => 0 });
  await expect(secrets.get()).rejects.toThrow('cannot read secret autopilot: ThrottlingException');
});

it('hands out a fresh value at once (no read, no wait), and nothing once it is past its TTL', async () => {
  let clock = Date.parse('2026-11-23T10:00:00Z');
  const sm = flakyClient();
  const secrets = secretsManagerProvider({ secretId: 'autopilot', client: sm.client, now: () => clock });
  expect(secrets.cached?.()).toBeUndefined(); // nothing read yet
  await secrets.get();
  expect(secrets.cached?.()?.slackSigningSecret).toBe('signing-0123456789');
  clock += 5 * 60_000 + 1;
  expect(secrets.cached?.()).toBeUndefined();
  expect(sm.calls()).toBe(1);
});
