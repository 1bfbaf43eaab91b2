/**
 * Values README "Environment" promises to handle: an unusable `SLACK_REPLY_ORIGINS` entry stops
 * the function at start naming the variable (dropped, it would refuse every reply to the origin
 * meant); an empty `AUTOPILOT_POLICY` means the default policy.json for the CLI as for the
 * functions (not the working directory itself).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { policySchemas } from '../../src/policy/schema.js';
import { workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');

const WORKER_ENV = {
  CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
  CONSOLE_API_KEY: 'fake-console-key-for-review',
  STATE_TABLE_NAME: 'review-table',
  ACTIONS_QUEUE_URL: 'http://127.0.0.1:9/queue/actions',
  DLQ_URL: 'http://127.0.0.1:9/queue/dlq',
  WEBHOOK_REQUESTER_KEY: 'review-webhook-requester-key',
  SWEEPER_REQUESTER_KEY: 'review-sweeper-requester-key',
  AWS_REGION: 'us-east-1',
};
const policy = policySchemas().policy.parse({ version: 1 });

describe('environment validation (README "Environment")', () => {
  it('an unusable SLACK_REPLY_ORIGINS stops the worker at start, naming the variable', () => {
    expect(() =>
      workerDepsFromEnv({ ...WORKER_ENV, SLACK_REPLY_ORIGINS: 'http//localhost:3000' }, { policy }),
    ).toThrow(/SLACK_REPLY_ORIGINS/);
  });

  it('an empty AUTOPILOT_POLICY means the default policy.json for the CLI too', async () => {
    const run = captureIo({ env: { AUTOPILOT_POLICY: '' }, cwd: REPO });
    const code = await runCli(['policy', 'check'], run.io);
    expect(run.err()).not.toContain('EISDIR');
    expect(code, run.err()).toBe(0);
  });
});
