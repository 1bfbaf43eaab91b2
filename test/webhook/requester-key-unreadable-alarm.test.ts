/**
 * WebhookCannotSign pages when the webhook cannot read its requester key
 * (WEBHOOK_REQUESTER_KEY_SECRET_ID: a deleted secret, a KMS key policy, the role's read). Its
 * runbook says each person was answered "not queued" and the request lines carry outcome
 * `signing_failed`. The tests of that alarm give the signer a provider of its own. As deployed,
 * though, the webhook read its requester key and its Slack signing secret in a single read: one
 * unreadable secret failed both. Every request's signature check then answered 503, read commands
 * too. The signer was never reached, RequestsNotSigned never counted and the alarm never fired.
 * The only page was WebhookServerErrors, and its log line blamed "the signing secret".
 *
 * Wired the deployed way (webhookDepsFromEnv), on the emulators and a Secrets Manager stand-in
 * holding the webhook's JSON secret but not its requester key's (deleted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import { commandBody, SIGNING_SECRET, signedRequest } from '../helpers/slack-requests.js';
import { alarmReading, emittedMetrics, expectReadsEmitted } from '../infra/alarm-reading.js';
import { synthesize } from '../infra/synth.js';
import { deployedWebhookOn } from './deployed-webhook.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const { emu: emulators } = emulatorsForFile();
const synth = synthesize({}, { bundle: false });
let sm: FakeSecretsManager;
beforeAll(async () => {
  sm = await startFakeSecretsManager({ now: () => NOW });
  sm.values.set(
    'webhook-secret',
    JSON.stringify({ slackSigningSecret: SIGNING_SECRET, consoleReadOnlyApiKey: 'read-only-key-0123456789' }),
  );
});
afterAll(async () => {
  synth.cleanup();
  await sm?.close();
});

const deployedWebhook = () =>
  deployedWebhookOn(emulators, {
    secrets: {
      AUTOPILOT_SECRET_ID: 'webhook-secret',
      // Deleted: Secrets Manager answers ResourceNotFoundException for it.
      WEBHOOK_REQUESTER_KEY_SECRET_ID: 'webhook-requester-key-deleted',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.url,
    },
    now: NOW,
  });

const command = (text: string) =>
  signedRequest('/slack/commands', commandBody({ text }), { timestamp: Math.floor(NOW / 1000) });

describe('a deployed webhook whose requester key cannot be read', () => {
  it('answers a change "not queued" and counts it under the metric WebhookCannotSign reads', async () => {
    const { app, lines } = deployedWebhook();
    const res = await app.request(command('approve trg_1 ph_1 smoke tests green'));
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('*not* queued');

    const counted = emittedMetrics(lines).filter((m) => m.name === 'RequestsNotSigned');
    expect(counted).toHaveLength(1);
    expectReadsEmitted(alarmReading(synth, 'RequestsNotSigned'), counted[0]!);
  });

  it('still answers read commands: the Slack signature does not need the requester key', async () => {
    const { app } = deployedWebhook();
    const res = await app.request(command('help'));
    expect(res.status).toBe(200);
  });
});
