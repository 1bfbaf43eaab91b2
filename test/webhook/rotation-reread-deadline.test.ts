/**
 * The first request after the signing secret was rotated makes the webhook read the secret again.
 * The first read was bounded by the request's deadline (503 in time: Slack waits 3 s), but this
 * re-read was not: a slow Secrets Manager kept the request open with no answer at all.
 */
import { describe, expect, it } from 'vitest';
import type { SecretsProvider } from '../../src/secrets/secrets.js';
import { commandBody, SIGNING_SECRET, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);
const ROTATED = 'rotated-signing-secret-fedcba9876543210';

describe('re-reading a rotated signing secret', () => {
  it('answers within the request deadline even when the re-read hangs', async () => {
    const values = { consoleApiKey: 'sandbox-key', slackSigningSecret: SIGNING_SECRET };
    const secrets: SecretsProvider = {
      get: async () => values,
      cached: () => values,
      // Secrets Manager slow to answer (the webhook's client may take ~3 s over two attempts)
      refresh: () => new Promise<boolean>(() => undefined),
      rotates: true,
    };
    const { app } = buildApp({ now: () => NOW, deadlineMs: 100, secrets });
    const answered = app.request(
      signedRequest('/slack/commands', commandBody({ text: 'help' }), {
        timestamp: NOW / 1000,
        secret: ROTATED,
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      Promise.resolve(answered).then((res) => `answered ${res.status}`),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('no answer after 2 s'), 2_000);
      }),
    ]);
    clearTimeout(timer);
    expect(outcome).toBe('answered 503');
  });
});
