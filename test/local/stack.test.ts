/**
 * The local stack as `npm start` runs it (the real handlers from functions/), booted in-process.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { renderBanner } from '../../src/local/banner.js';
import { sendSigned, signedSlashCommand } from '../../src/local/sign.js';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readCursor } from '../../src/state/sweep-cursor.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-stack-'));
let stack: LocalStack;

beforeAll(async () => {
  stack = await bootLocalStack({
    port: 0,
    stateDir: dir,
    writeEndpointsFile: true,
    sweepIntervalSeconds: false,
    worker: { waitTimeSeconds: 1 },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false },
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const slash = (text: string, responseId: string) =>
  sendSigned(
    signedSlashCommand(stack.endpoints.webhookUrl, stack.signingSecret, {
      text,
      userId: 'U0ADMIN',
      teamId: 'T0001',
      responseUrl: stack.receiver.responseUrl(responseId),
    }),
  );

describe('the local stack', () => {
  it('runs every part and writes the endpoints file', () => {
    expect(stack.components).toEqual({
      sandbox: 'running',
      webhook: 'running',
      worker: 'running',
      sweeper: 'running',
    });
    const endpoints = JSON.parse(readFileSync(join(dir, 'endpoints.json'), 'utf8'));
    expect(Object.keys(endpoints)).toEqual(
      expect.arrayContaining([
        'webhookUrl',
        'consoleApiBaseUrl',
        'sqsEndpoint',
        'queueUrl',
        'dlqUrl',
        'dynamodbEndpoint',
        'tableName',
      ]),
    );
    expect(endpoints.webhookUrl).toBe(stack.endpoints.webhookUrl);
  });

  it('points notifications at the Slack receiver through SLACK_WEBHOOK_URL, leaving the policy alone', () => {
    expect(stack.notifyReceiver).toBe(true);
    expect(stack.env.SLACK_WEBHOOK_URL).toBe(stack.receiver.channelUrl);
    expect(JSON.parse(readFileSync(stack.policyPath, 'utf8')).notifications.slackWebhookUrl).toBeUndefined();
    expect(stack.env.SLACK_REPLY_ORIGINS).toBe(stack.receiver.origin);
  });

  it("tells its worker the emulated queue's redrive count, as the CDK stack does", async () => {
    const out = await stack.emulators.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: stack.emulators.queueUrl,
        AttributeNames: ['RedrivePolicy'],
      }),
    );
    const redrive = JSON.parse(out.Attributes?.RedrivePolicy ?? '{}') as { maxReceiveCount?: unknown };
    expect(Number(redrive.maxReceiveCount)).toBe(MAX_RECEIVE_COUNT);
    expect(stack.env.MAX_RECEIVE_COUNT).toBe(String(MAX_RECEIVE_COUNT));
  });

  it('answers a signed status command and refuses an unsigned one', async () => {
    const ok = await slash('status', 'status');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('status');
    const forged = await fetch(`${stack.endpoints.webhookUrl}/slack/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'text=status&team_id=T0001&user_id=U0ADMIN',
    });
    expect(forged.status).toBe(401);
  });

  it('carries a chat approval through queue and worker to a reply at the receiver', async () => {
    await slash('approve trg_5 ph_1 from the stack test', 'approve');
    const reply = await stack.receiver.waitFor((p) => p.path === '/response/approve', 15_000);
    expect(JSON.stringify(reply.body)).toContain('trg_5');
  });

  it('prints a banner with every URL and a signed curl, without the API key', () => {
    const banner = renderBanner(stack, { sweepIntervalSeconds: 60, sandboxKey: true });
    for (const url of Object.values(stack.endpoints)) expect(banner).toContain(url);
    expect(banner).toContain('x-slack-signature: v0=');
    expect(banner).toContain('LOCAL ONLY');
    // As deployed by default: the worker's mutations carry x-respect-review-settings, and the banner says so.
    expect(stack.env.CONSOLE_RESPECT_REVIEW_SETTINGS).toBe('true');
    expect(banner).toContain('respected: mutations carry x-respect-review-settings');
  });

  it('plans a sweep with `autopilot sweep --dry-run --local` and changes nothing', async () => {
    const out: string[] = [];
    const code = await runCli(['sweep', '--dry-run', '--local'], {
      stdout: (t) => out.push(t),
      stderr: () => undefined,
      env: { AUTOPILOT_ENDPOINTS_FILE: join(dir, 'endpoints.json'), AUTOPILOT_POLICY: stack.policyPath },
      cwd: dir,
      now: () => new Date(),
    });
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('Sweep plan (dry run');
    expect(out.join('\n')).toContain('new_checkout_copy');
    const table = { client: stack.emulators.dynamo, tableName: stack.endpoints.tableName };
    expect(await readCursor(table)).toBeUndefined();
  });

  it('runs the sweeper with a scheduled event and a Lambda context', async () => {
    const summary = (await stack.runSweeper()) as { events: { eventsRead: number } };
    expect(summary.events.eventsRead).toBeGreaterThan(0);
  });

  it('removes the endpoints file when it stops', async () => {
    await stack.stop();
    expect(existsSync(join(dir, 'endpoints.json'))).toBe(false);
  });
});

describe('a schedule Node cannot keep', () => {
  /** 2^31 - 1 ms in whole seconds: the longest timer Node keeps. */
  const MAX_TIMER_SECONDS = 2_147_483;

  // Past 2^31 - 1 ms Node fires a timer every 1 ms: the sweeper would run back to back.
  it.each([
    [{ sweepIntervalSeconds: MAX_TIMER_SECONDS + 1 }, 'sweepIntervalSeconds'],
    [{ sweepIntervalSeconds: 3_000_000 }, 'sweepIntervalSeconds'],
    [{ release: { intervalSeconds: 3_000_000 } }, 'release.intervalSeconds'],
  ])('is refused before anything starts: %j', async (options, name) => {
    let runs = 0;
    const booting = bootLocalStack({
      port: 0,
      stateDir: join(dir, 'never'),
      sweeper: {
        handler: async () => {
          runs++;
          return {};
        },
      },
      ...options,
    });
    await expect(booting).rejects.toThrow(
      `${name} must be a whole number of seconds from 0 to ${MAX_TIMER_SECONDS}`,
    );
    expect(runs).toBe(0);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});
