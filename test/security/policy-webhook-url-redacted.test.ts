/**
 * The policy's deprecated `notifications.slackWebhookUrl` is a credential (an incoming-webhook URL:
 * whoever holds it posts to the channel), yet it was never told to the scrubber: the secret's URL
 * is, the policy's was not. A log line or error that carried it (a library's error naming the
 * URL it failed to reach, a payload logged whole) wrote it in the clear. Each function, built from
 * its environment with such a policy file, now redacts it as it redacts the secret's URL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';

// Not a real webhook: made up for this test. Its token part is what must never be written.
const TOKEN = 'pOlIcYwEbHoOkToKeN0042';
const POLICY_URL = `https://hooks.slack.com/services/T0POLICY/B0POLICY/${TOKEN}`;

const env = {
  SLACK_SIGNING_SECRET: 'local-signing-secret',
  WEBHOOK_REQUESTER_KEY: 'local-webhook-key',
  SWEEPER_REQUESTER_KEY: 'local-sweeper-key',
  CONSOLE_API_KEY: 'sandbox-key',
  CONSOLE_READ_ONLY_API_KEY: 'sandbox-read-key',
  CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
  ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions',
  DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq',
  STATE_TABLE_NAME: 'autopilot-state',
  AWS_REGION: 'us-east-1',
};

let dir: string;
let policyFile: string;
let slack: SlackCapture;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'autopilot-policy-url-'));
  const policy = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../policy.json'), 'utf8'));
  policy.$schema = undefined;
  policy.notifications = { ...policy.notifications, slackWebhookUrl: POLICY_URL };
  policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify(policy));
  slack = await startSlackCapture();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await slack?.close();
});

describe("the policy's deprecated Slack webhook URL", () => {
  for (const role of ['webhook', 'worker', 'sweeper'] as const) {
    it(`is redacted from the ${role}'s log lines, errors and Slack posts`, async () => {
      // A fresh process: nothing told to the scrubber by another function's start.
      vi.resetModules();
      const fromEnv = await import('../../src/wiring/from-env.js');
      const { createLogger } = await import('../../src/observability/logger.js');
      const { postToSlack } = await import('../../src/slack/post.js');
      const lines: string[] = [];
      const logger = createLogger({ service: role, sink: (line) => lines.push(line) });
      const build = {
        webhook: fromEnv.webhookDepsFromEnv,
        worker: fromEnv.workerDepsFromEnv,
        sweeper: fromEnv.sweeperDepsFromEnv,
      }[role];
      build({ ...env, AUTOPILOT_POLICY: policyFile }, { logger });

      const failure = new Error(`request to ${POLICY_URL} failed, reason: getaddrinfo EAI_AGAIN`);
      logger.error('cannot post to the channel', { error: failure, target: POLICY_URL });
      const before = slack.posts.length;
      const posted = await postToSlack(
        slack.url('/services/T0/B0/reply'),
        { text: `the channel is ${POLICY_URL}` },
        { allowedOrigins: [slack.origin] },
      );
      expect(posted.ok).toBe(true);

      const logs = lines.join('\n');
      const sent = JSON.stringify(slack.posts.slice(before));
      // Booleans only: a failing assertion must not print the URL.
      expect({ logs: logs.includes(TOKEN), slack: sent.includes(TOKEN) }).toEqual({
        logs: false,
        slack: false,
      });
      expect(logs).toContain('[redacted]');
      expect(sent).toContain('[redacted]');
    });
  }
});
