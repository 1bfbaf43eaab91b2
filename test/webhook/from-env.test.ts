import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { webhookDepsFromEnv } from '../../src/wiring/from-env.js';

const base = {
  AUTOPILOT_POLICY: 'policy.json',
  SLACK_SIGNING_SECRET: 'local-secret',
  WEBHOOK_REQUESTER_KEY: 'local-webhook-key',
  CONSOLE_API_KEY: 'sandbox-key',
  CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
  ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions',
  STATE_TABLE_NAME: 'autopilot-state',
  AWS_REGION: 'us-east-1',
};

describe('building the webhook from the environment (cold start)', () => {
  it('builds from a complete local environment', () => {
    const deps = webhookDepsFromEnv(base);
    expect(deps.queueUrl).toBe(base.ACTIONS_QUEUE_URL);
    expect(deps.policy.chat.teams).toEqual(['T0001']);
  });

  it('fails with the zod path when the policy file is invalid', () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-policy-'));
    const file = join(dir, 'policy.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, chat: { teams: ['T0001'], grants: { U1: ['launch_missiles'] } } }),
    );
    expect(() => webhookDepsFromEnv({ ...base, AUTOPILOT_POLICY: file })).toThrow(/chat\.grants\.U1\[0\]/);
  });

  it('fails loudly when no signing secret can be had', () => {
    const { SLACK_SIGNING_SECRET: _omitted, ...rest } = base;
    expect(() => webhookDepsFromEnv(rest)).toThrow(/AUTOPILOT_SECRET_ID .* SLACK_SIGNING_SECRET/);
  });

  it('fails loudly without its requester key, which it needs to vouch for chat requests', () => {
    const { WEBHOOK_REQUESTER_KEY: _omitted, ...rest } = base;
    expect(() => webhookDepsFromEnv(rest)).toThrow(
      'set WEBHOOK_REQUESTER_KEY_SECRET_ID (Lambda) or WEBHOOK_REQUESTER_KEY (local) to vouch for and check requesters',
    );
  });

  it('names a missing variable', () => {
    const { ACTIONS_QUEUE_URL: _omitted, ...rest } = base;
    expect(() => webhookDepsFromEnv(rest)).toThrow(
      'environment variable ACTIONS_QUEUE_URL is required but not set',
    );
  });
});
