/**
 * The Slack incoming-webhook URL is a credential: it comes from the secret (`slackWebhookUrl`,
 * `SLACK_WEBHOOK_URL` locally), not from the policy. The policy's old field still works for
 * existing deployments, with a warning at synth and at start, and the secret wins.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { POLICY_WEBHOOK_URL_DEPRECATED } from '../../src/secrets/secrets.js';
import { workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { synthesize } from '../infra/synth.js';
import { type Bench, basePolicy, benchResetEachTest } from '../worker/fixture.js';

const bench = benchResetEachTest();
beforeEach(() => {
  bench.slack.posts.length = 0;
});

const withoutChannel = () => {
  const policy = basePolicy(bench.slack.origin);
  policy.notifications = {};
  return policy;
};

async function runOne(worker: ReturnType<Bench['worker']>, requestId: string, triggerId: string) {
  await bench.send({ triggerId, phaseId: 'ph_1', requestId });
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
}

describe('the notifications channel', () => {
  it("is the secret's URL: the worker posts there with no URL in the policy", async () => {
    const worker = bench.worker({
      policy: withoutChannel(),
      channelUrl: async () => bench.slack.url('/services/from-the-secret'),
    });
    await runOne(worker, 'channel-secret-1', 'trg_5');
    expect(bench.slack.posts.some((p) => p.path === '/services/from-the-secret')).toBe(true);
  });

  it('prefers the secret to the deprecated policy field', async () => {
    const worker = bench.worker({ channelUrl: async () => bench.slack.url('/services/from-the-secret') });
    await runOne(worker, 'channel-secret-2', 'trg_6');
    const paths = bench.slack.posts.map((p) => p.path);
    expect(paths).toContain('/services/from-the-secret');
    expect(paths).not.toContain('/services/channel');
  });

  it('is read from SLACK_WEBHOOK_URL by the wired worker, and a policy URL is warned about at start', async () => {
    const lines: string[] = [];
    const env = {
      CONSOLE_API_BASE_URL: bench.api.url,
      CONSOLE_API_KEY: 'sandbox-key',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/secret-part',
      ACTIONS_QUEUE_URL: bench.queue.queueUrl,
      DLQ_URL: bench.emulators.dlqUrl,
      STATE_TABLE_NAME: 'autopilot-state',
      WEBHOOK_REQUESTER_KEY: 'k1',
      SWEEPER_REQUESTER_KEY: 'k2',
    };
    const deps = workerDepsFromEnv(env, {
      policy: parsePolicy(basePolicy(bench.slack.origin)),
      logger: createLogger({ service: 'worker', sink: (line) => lines.push(line) }),
    });
    expect(await deps.channelUrl?.()).toBe(env.SLACK_WEBHOOK_URL);
    expect(lines.map((l) => JSON.parse(l).message)).toEqual([POLICY_WEBHOOK_URL_DEPRECATED]);
    // The warning names the field, never the URL.
    expect(lines.join('\n')).not.toContain('/services/');
  });
});

describe('synth', () => {
  it('warns when the policy still holds the URL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autopilot-url-'));
    try {
      const policy = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../policy.json'), 'utf8'));
      policy.$schema = undefined;
      policy.notifications = { slackWebhookUrl: 'https://hooks.slack.com/services/T0/B0/x' };
      const file = join(dir, 'policy.json');
      writeFileSync(file, JSON.stringify(policy));
      const s = synthesize({ policyFile: file }, { bundle: false });
      try {
        Annotations.fromStack(s.stack).hasWarning(
          '*',
          Match.stringLikeRegexp('slackWebhookUrl in the policy is deprecated'),
        );
      } finally {
        s.cleanup();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
