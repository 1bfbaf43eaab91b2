/**
 * A field of a function's JSON secret that we do not read was ignored without a word: the
 * worker's secret with `slackWebHookUrl` (one letter's case off) read as "no channel", so every
 * `ask` was denied and no outcome reached the channel, with no message anywhere. Now:
 *
 * - a near-miss of a field we read that the secret lacks (`slackWebHookUrl` without
 *   `slackWebhookUrl`) fails the read, naming both: the function would otherwise run as if the
 *   field were not set, which a warning nobody reads would not prevent. Failing records alarm
 *   (WorkerErrors) and are retried; the fix is read within a minute, with no redeploy;
 * - any other unknown field is a warning, once per container, naming it and our nearest field.
 *
 * For every function's secret (webhook, worker, sweeper); the requester keys' secrets are plain
 * strings, not JSON. No value ever appears in an error or a log line.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { sweeperDepsFromEnv, webhookDepsFromEnv, workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { type FakeSecretsManager, startFakeSecretsManager } from '../helpers/secrets-manager.js';
import { testPolicy } from '../policy/fixtures.js';

const CHANNEL = 'https://hooks.slack.com/services/T0/B0/channel-secret-part';
const VALUES = ['channel-secret-part', 'worker-key-0123456789', 'read-only-0123456789', 'signing-0123456789'];

let sm: FakeSecretsManager;
let clock = 1_800_000_000_000;
let lines: string[];
const env = (secretId: string) => ({
  AUTOPILOT_SECRET_ID: secretId,
  WEBHOOK_REQUESTER_KEY_SECRET_ID: 'webhook-key',
  SWEEPER_REQUESTER_KEY_SECRET_ID: 'sweeper-key',
  CONSOLE_API_BASE_URL: 'https://console.example.com',
  ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions',
  DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq',
  STATE_TABLE_NAME: 'autopilot-state',
});
const options = () => ({
  policy: testPolicy,
  clock: () => clock,
  logger: createLogger({ service: 'test', now: () => clock, sink: (line) => lines.push(line) }),
});
const messages = () => lines.map((line) => JSON.parse(line).message as string);

beforeAll(async () => {
  sm = await startFakeSecretsManager();
  vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', sm.url);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_REGION', 'eu-central-1');
  sm.values.set('webhook-key', 'webhook-requester-key');
  sm.values.set('sweeper-key', 'sweeper-requester-key');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await sm?.close();
});
beforeEach(() => {
  lines = [];
  clock += 3_600_000;
});

const expectNoValue = (text: string) => {
  for (const value of VALUES) expect(text).not.toContain(value);
};

describe('a near-miss of a field the secret lacks fails the read, naming both, never a value', () => {
  it("the worker's slackWebHookUrl: no channel would deny every ask", async () => {
    sm.values.set(
      'worker-1',
      JSON.stringify({ consoleApiKey: 'worker-key-0123456789', slackWebHookUrl: CHANNEL }),
    );
    const deps = workerDepsFromEnv(env('worker-1'), options());
    const failure = await deps.channelUrl?.().then(
      () => 'read',
      (error: Error) => error.message,
    );
    expect(failure).toMatch(
      /secret worker-1 has a field "slackWebHookUrl".*did you mean "slackWebhookUrl"\?/,
    );
    expectNoValue(`${failure}\n${lines.join('\n')}`);

    // Fixed in Secrets Manager: read again within a minute, no redeploy.
    sm.values.set(
      'worker-1',
      JSON.stringify({ consoleApiKey: 'worker-key-0123456789', slackWebhookUrl: CHANNEL }),
    );
    clock += 61_000;
    expect(await deps.channelUrl?.()).toBe(CHANNEL);
  });

  it("the webhook's consoleReadonlyApiKey: it would read with the full key", async () => {
    sm.values.set(
      'webhook-1',
      JSON.stringify({
        slackSigningSecret: 'signing-0123456789',
        consoleApiKey: 'worker-key-0123456789',
        consoleReadonlyApiKey: 'read-only-0123456789',
      }),
    );
    const deps = webhookDepsFromEnv(env('webhook-1'), options());
    await expect(deps.secrets.get()).rejects.toThrow(
      /secret webhook-1 has a field "consoleReadonlyApiKey".*did you mean "consoleReadOnlyApiKey"\?/,
    );
  });

  it("the sweeper's slackWebhookURL", async () => {
    sm.values.set(
      'sweeper-1',
      JSON.stringify({ consoleReadOnlyApiKey: 'read-only-0123456789', slackWebhookURL: CHANNEL }),
    );
    const deps = sweeperDepsFromEnv(env('sweeper-1'), options());
    await expect(deps.channelUrl?.()).rejects.toThrow(/"slackWebhookURL".*did you mean "slackWebhookUrl"\?/);
  });
});

describe('another unknown field is a warning, once per container', () => {
  it('names the field and our nearest one, never its value, and is not repeated on the next read', async () => {
    sm.values.set(
      'worker-2',
      JSON.stringify({
        consoleApiKey: 'worker-key-0123456789',
        slackWebhookUrl: CHANNEL,
        rotatedBy: 'read-only-0123456789',
      }),
    );
    const deps = workerDepsFromEnv(env('worker-2'), options());
    expect(await deps.channelUrl?.()).toBe(CHANNEL);
    clock += 10 * 60_000; // past the cache's TTL: read again
    expect(await deps.channelUrl?.()).toBe(CHANNEL);
    expect(sm.reads('worker-2')).toBe(2);
    const warnings = messages().filter((m) => m.includes('rotatedBy'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /secret worker-2: field "rotatedBy" is not one console-autopilot reads.*did you mean "[a-zA-Z]+"\?/,
    );
    expect(JSON.parse(lines.find((l) => l.includes('rotatedBy')) ?? '{}').level).toBe('warn');
    expectNoValue(lines.join('\n'));
  });

  it('a misspelt copy beside the right field is warned about, the right one used', async () => {
    sm.values.set(
      'sweeper-2',
      JSON.stringify({
        consoleReadOnlyApiKey: 'read-only-0123456789',
        slackWebhookUrl: CHANNEL,
        slackWebHookUrl: CHANNEL,
      }),
    );
    const deps = sweeperDepsFromEnv(env('sweeper-2'), options());
    expect(await deps.channelUrl?.()).toBe(CHANNEL);
    expect(messages()).toEqual([
      expect.stringMatching(/secret sweeper-2: field "slackWebHookUrl" .*did you mean "slackWebhookUrl"\?/),
    ]);
  });

  it('says nothing of the filler field Secrets Manager generates in a secret the stack creates', async () => {
    sm.values.set(
      'worker-4',
      JSON.stringify({ consoleApiKey: 'worker-key-0123456789', slackWebhookUrl: '', unused: 'Xk3generated' }),
    );
    const deps = workerDepsFromEnv(env('worker-4'), options());
    expect(await deps.channelUrl?.()).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('does not name a field whose name looks like a value pasted in its place', async () => {
    const pasted = 'AKIAEXAMPLE0123456789abcdefghijklmnopqrstuv';
    sm.values.set('worker-3', JSON.stringify({ consoleApiKey: 'worker-key-0123456789', [pasted]: '' }));
    const deps = workerDepsFromEnv(env('worker-3'), options());
    expect(await deps.channelUrl?.()).toBeUndefined();
    expect(messages()).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(pasted);
  });
});
