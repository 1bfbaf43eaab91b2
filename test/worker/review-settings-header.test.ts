/**
 * The worker's mutations respect the platform's review settings unless the operator turns that off
 * (`CONSOLE_RESPECT_REVIEW_SETTINGS`, context `respectReviewSettings`). The Console client could
 * always send `x-respect-review-settings: true` (spec part 5), but no deployed wiring ever asked it
 * to: every approve, group disable and archive bypassed the review settings, so a phase a team made
 * "Require Review" was approved by the API key alone, and nothing said so.
 *
 * The worker as its Lambda builds it (workerDepsFromEnv, from environment variables only), on the
 * emulators, against the sandbox over HTTP; what the sandbox received is read from its request log.
 * Approved: the seeded `ph_1`, a phase that requires review.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit } from '../../src/state/audit.js';
import {
  REVIEW_SETTINGS_BYPASSED,
  webhookDepsFromEnv,
  workerDepsFromEnv,
} from '../../src/wiring/from-env.js';
import { createWorker } from '../../src/worker/worker.js';
import { basePolicy, benchForFile, copyTrigger, type LogLine } from './fixture.js';

const bench = benchForFile();

/** The environment the stack gives the worker (local secrets in place of AUTOPILOT_SECRET_ID). */
function lambdaEnv(extra: Record<string, string>): Record<string, string> {
  const { emulators, api, slack, requesterKeys } = bench;
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    ACTIONS_QUEUE_URL: emulators.queueUrl,
    DLQ_URL: emulators.dlqUrl,
    STATE_TABLE_NAME: emulators.tableName,
    CONSOLE_API_BASE_URL: api.url,
    CONSOLE_API_KEY: 'sandbox-key',
    CONSOLE_READ_ONLY_API_KEY: 'sandbox-key',
    SLACK_SIGNING_SECRET: 'test-signing-secret',
    WEBHOOK_REQUESTER_KEY: String(requesterKeys.webhook),
    SWEEPER_REQUESTER_KEY: String(requesterKeys.sweeper),
    SLACK_REPLY_ORIGINS: slack.origin,
    ...extra,
  };
}

function workerFrom(env: Record<string, string>) {
  const logs: LogLine[] = [];
  const deps = workerDepsFromEnv(env, {
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    clock: () => bench.clock.now.getTime(),
    logger: createLogger({ service: 'worker', sink: (line) => logs.push(JSON.parse(line) as LogLine) }),
  });
  return { worker: createWorker(deps), logs };
}

const admin = { source: 'slack' as const, id: 'U0ADMIN' }; // holds disable_groups and archive_config

/** One of each of the worker's three mutations, each ending done; the header each carried to the sandbox. */
async function mutate(env: Record<string, string>, tag: string, group: string, config: string) {
  const { worker, logs } = workerFrom(env);
  const triggerId = `trg_review_${tag}`;
  copyTrigger(bench, triggerId);
  expect(bench.api.sandbox.state.triggers.get(triggerId)?.phases[0]).toMatchObject({
    id: 'ph_1',
    requiresReview: true,
  });
  const from = bench.api.sandbox.requests.length;
  const requests = [
    { requestId: `review-approve-${tag}`, triggerId, phaseId: 'ph_1' },
    {
      requestId: `review-disable-${tag}`,
      action: 'disable_groups' as const,
      experimentId: 'onboarding_checklist',
      groupNames: [group],
      requestedBy: admin,
    },
    {
      requestId: `review-archive-${tag}`,
      action: 'archive_config' as const,
      configId: config,
      reason: 'unused',
      force: true,
      requestedBy: admin,
    },
  ];
  for (const request of requests) {
    await bench.send(request);
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  }
  const results = await Promise.all(
    requests.map(async (r) => (await readAudit(bench.table, r.requestId)).map((a) => a.result)),
  );
  expect(results).toEqual([['approved'], ['groups-disabled'], ['archived']]);
  const sent = bench.api.sandbox.requests.slice(from);
  expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
    `PUT /console/v1/release_pipeline_triggers/${triggerId}/approve`,
    'POST /console/v1/experiments/onboarding_checklist/disable_groups',
    `PUT /console/v1/dynamic_configs/${config}/archive`,
  ]);
  return {
    headers: sent.map((r) => r.headers['x-respect-review-settings']),
    warned: logs.some((l) => l.level === 'warn' && l.message === REVIEW_SETTINGS_BYPASSED),
  };
}

describe('the worker and the x-respect-review-settings header', () => {
  it('sends it on every mutation by default (the variable unset), a review-required phase approval among them', async () => {
    expect(await mutate(lambdaEnv({}), 'default', 'test', 'homepage_hero')).toEqual({
      headers: ['true', 'true', 'true'],
      warned: false,
    });
  });

  it('sends it when CONSOLE_RESPECT_REVIEW_SETTINGS=true', async () => {
    expect(
      await mutate(
        lambdaEnv({ CONSOLE_RESPECT_REVIEW_SETTINGS: 'true' }),
        'on',
        'test_b',
        'pricing_table_layout',
      ),
    ).toEqual({ headers: ['true', 'true', 'true'], warned: false });
  });

  it('omits it when CONSOLE_RESPECT_REVIEW_SETTINGS=false, and says so at start', async () => {
    expect(
      await mutate(
        lambdaEnv({ CONSOLE_RESPECT_REVIEW_SETTINGS: 'false' }),
        'off',
        'test_c',
        'onboarding_flow',
      ),
    ).toEqual({ headers: [undefined, undefined, undefined], warned: true });
  });

  it.each(['yes', '1', 'TRUE', 'off'])(
    'refuses to start on CONSOLE_RESPECT_REVIEW_SETTINGS=%j, naming it',
    (raw) => {
      const start = () => workerFrom(lambdaEnv({ CONSOLE_RESPECT_REVIEW_SETTINGS: raw }));
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(
        `environment variable CONSOLE_RESPECT_REVIEW_SETTINGS must be true or false, got "${raw}"`,
      );
    },
  );

  it("leaves the webhook's reads alone: it never mutates, and never sends the header", async () => {
    const deps = webhookDepsFromEnv(lambdaEnv({}), { policy: parsePolicy(basePolicy(bench.slack.origin)) });
    const from = bench.api.sandbox.requests.length;
    await deps.console.segments.list({ page: 1, limit: 1 });
    const [read] = bench.api.sandbox.requests.slice(from);
    expect(read?.method).toBe('GET');
    expect(read?.headers['x-respect-review-settings']).toBeUndefined();
  });
});
