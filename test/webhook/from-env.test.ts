import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { sweeperDepsFromEnv, webhookDepsFromEnv, workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { mutationLimitsFromEnv } from '../../src/wiring/mutation-budget.js';

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

  it('refuses a local requester key beside Secrets Manager, where it would never be read (every request would fail to sign)', () => {
    const onLambda = {
      ...base,
      AUTOPILOT_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:autopilot-webhook-AbCdEf',
    };
    expect(() => webhookDepsFromEnv(onLambda)).toThrow(
      'set WEBHOOK_REQUESTER_KEY_SECRET_ID: with AUTOPILOT_SECRET_ID or another *_SECRET_ID set, requester keys are read from Secrets Manager, never from WEBHOOK_REQUESTER_KEY',
    );
    // The worker checks both signers' keys: one named secret puts it on Lambda for the other too.
    const worker = {
      ...base,
      SWEEPER_REQUESTER_KEY: 'local-sweeper-key',
      WEBHOOK_REQUESTER_KEY_SECRET_ID:
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:webhook-key-AbCdEf',
    };
    expect(() => workerDepsFromEnv(worker)).toThrow(
      /set SWEEPER_REQUESTER_KEY_SECRET_ID: .* never from SWEEPER_REQUESTER_KEY/,
    );
    expect(() =>
      webhookDepsFromEnv({
        ...onLambda,
        WEBHOOK_REQUESTER_KEY_SECRET_ID:
          'arn:aws:secretsmanager:us-east-1:123456789012:secret:webhook-key-AbCdEf',
      }),
    ).not.toThrow();
  });

  it('names a missing variable', () => {
    const { ACTIONS_QUEUE_URL: _omitted, ...rest } = base;
    expect(() => webhookDepsFromEnv(rest)).toThrow(
      'environment variable ACTIONS_QUEUE_URL is required but not set',
    );
  });
});

/** What all three functions need locally; each test takes one value away or makes one wrong. */
const all = {
  ...base,
  SWEEPER_REQUESTER_KEY: 'local-sweeper-key',
  DLQ_URL: 'http://127.0.0.1:1/000000000000/dlq',
};

describe('values refused at start, naming the variable (never a silent default)', () => {
  it.each(['verbose', 'INFO', 'warning'])('LOG_LEVEL=%s', (level) => {
    for (const build of [webhookDepsFromEnv, workerDepsFromEnv, sweeperDepsFromEnv]) {
      expect(() => build({ ...all, LOG_LEVEL: level })).toThrow(
        `environment variable LOG_LEVEL must be one of debug, info, warn, error, got "${level}"`,
      );
    }
    expect(() => webhookDepsFromEnv({ ...all, LOG_LEVEL: 'debug' })).not.toThrow();
  });

  it.each([
    ['MUTATION_LIMIT_10S', '0'],
    ['MUTATION_LIMIT_15MIN', '0'],
    ['MUTATION_LIMIT_10S', '1e2'],
  ])('%s=%s', (name, value) => {
    expect(() => mutationLimitsFromEnv({ [name]: value })).toThrow(
      `environment variable ${name} must be a whole number at least 1, got "${value}"`,
    );
    expect(() => workerDepsFromEnv({ ...all, [name]: value })).toThrow(name);
  });

  it('takes the mutation limits as set', () => {
    const limits = mutationLimitsFromEnv({ MUTATION_LIMIT_10S: '1', MUTATION_LIMIT_15MIN: ' 50 ' });
    expect(limits.map((l) => l.max)).toEqual([1, 50]);
  });

  it.each(['0', '0x10', '-5'])('SWEEPER_PAGE_SIZE=%s', (value) => {
    expect(() => sweeperDepsFromEnv({ ...all, SWEEPER_PAGE_SIZE: value })).toThrow(
      `environment variable SWEEPER_PAGE_SIZE must be a whole number at least 1, got "${value}"`,
    );
  });

  it.each(['0', '1001', '5.0'])('MAX_RECEIVE_COUNT=%s', (value) => {
    expect(() => workerDepsFromEnv({ ...all, MAX_RECEIVE_COUNT: value })).toThrow(
      `environment variable MAX_RECEIVE_COUNT must be a whole number from 1 to 1000, got "${value}"`,
    );
  });

  it("takes MAX_RECEIVE_COUNT as set, and the stack's redrive count when unset", () => {
    expect(workerDepsFromEnv({ ...all, MAX_RECEIVE_COUNT: '3' }).maxReceiveCount).toBe(3);
    expect(workerDepsFromEnv(all).maxReceiveCount).toBe(MAX_RECEIVE_COUNT);
  });

  it('takes SWEEPER_PAGE_SIZE as set, and 1000 when unset', () => {
    expect(sweeperDepsFromEnv({ ...all, SWEEPER_PAGE_SIZE: '250' }).pageSize).toBe(250);
    expect(sweeperDepsFromEnv(all).pageSize).toBe(1000);
  });
});

describe('a function started locally without the Console API key it needs', () => {
  const { CONSOLE_API_KEY: _key, ...keyless } = all;

  it('the worker fails at start naming CONSOLE_API_KEY', () => {
    expect(() => workerDepsFromEnv(keyless)).toThrow(
      'set CONSOLE_API_KEY (local), or AUTOPILOT_SECRET_ID (Lambda)',
    );
  });

  it.each([
    ['webhook', webhookDepsFromEnv],
    ['sweeper', sweeperDepsFromEnv],
  ] as const)('the %s fails at start naming both keys it may read with', (_role, build) => {
    expect(() => build(keyless)).toThrow(
      'set CONSOLE_READ_ONLY_API_KEY or CONSOLE_API_KEY (local), or AUTOPILOT_SECRET_ID (Lambda)',
    );
    expect(() => build({ ...keyless, CONSOLE_READ_ONLY_API_KEY: 'read-key' })).not.toThrow();
  });

  it('the worker does not take the read-only key for its own', () => {
    expect(() => workerDepsFromEnv({ ...keyless, CONSOLE_READ_ONLY_API_KEY: 'read-key' })).toThrow(
      'CONSOLE_API_KEY',
    );
  });
});

describe('one clock for every part a test drives', () => {
  const at = Date.UTC(2031, 4, 6, 7, 8, 9);
  const clock = () => at;

  it('stamps log lines and metric lines with the injected clock, and hands it to the webhook and the sweeper', () => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const worker = workerDepsFromEnv(all, { clock });
      worker.logger?.info('clock check');
      worker.metrics?.put('SlackPostsFailed', 1, {});
    } finally {
      write.mockRestore();
    }
    const [log, metric] = lines.map((line) => JSON.parse(line));
    expect(log).toMatchObject({ message: 'clock check', time: '2031-05-06T07:08:09.000Z' });
    expect(metric._aws.Timestamp).toBe(at);
    expect(webhookDepsFromEnv(all, { clock }).now).toBe(clock);
    expect(sweeperDepsFromEnv(all, { clock }).clock).toBe(clock);
  });
});

describe('Slack reply origins', () => {
  it('are the same list for the webhook (which keeps a response_url) and the worker (which posts to it)', () => {
    const env = { ...all, SLACK_REPLY_ORIGINS: 'http://127.0.0.1:4000/x, http://localhost:5000' };
    const origins = ['http://127.0.0.1:4000', 'http://localhost:5000'];
    expect(webhookDepsFromEnv(env).replyOrigins).toEqual(origins);
    expect(workerDepsFromEnv(env).slack?.allowedOrigins).toEqual(origins);
    expect(webhookDepsFromEnv(all).replyOrigins).toEqual([]);
  });
});
