/**
 * A day with console-autopilot, end to end and in-process: the local stack (sandbox, fauxqs,
 * dynalite, the real webhook app on a port, the worker behind the emulated event source
 * mapping, the sweeper) with one injected clock driving the business time of every part —
 * the webhook (signature window, `requestedAt`), the worker, the sweeper and the sandbox —
 * and the Slack signatures the test makes. Time moves through one fixed Monday in Berlin, so
 * the machine's date, weekday, time zone and season cannot change an outcome.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Message, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { sendSigned, signedInteraction, signedSlashCommand } from '../../src/local/sign.js';
import type { ReceivedPost } from '../../src/local/slack-receiver.js';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';
import { localSigner } from '../../src/local/vouch.js';
import { createLogger } from '../../src/observability/logger.js';
import { sendActionRequest } from '../../src/queue/actions-queue.js';
import type { RunSummary } from '../../src/sweeper/summary.js';
import { createSweeper } from '../../src/sweeper/sweeper.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import { sweeperDepsFromEnv, webhookDepsFromEnv, workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { loadPolicyFile } from '../../src/wiring/policy-file.js';
import { createWorker } from '../../src/worker/worker.js';
import { holdDelayedSends } from './time-warp.js';

const HOUR = 3_600_000;
/** A fixed Monday, 00:00 UTC: never derived from the machine's clock. */
const DAY = Date.UTC(2026, 10, 30);
/** Berlin's offset on that Monday, so "09:00 in Berlin" is exact in every season. */
const BERLIN = (() => {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Europe/Berlin',
    hour: 'numeric',
    hour12: false,
  })
    .formatToParts(new Date(DAY + 12 * HOUR))
    .find((p) => p.type === 'hour');
  return (Number(parts?.value) - 12) * HOUR;
})();
const berlin = (hh: number, mm = 0) => DAY + hh * HOUR + mm * 60_000 - BERLIN;

let clock = berlin(7);
const now = () => clock;
/** Slack signs with its own clock: the test's, so the webhook's ±5 min window holds on any machine date. */
const slackNow = () => Math.floor(clock / 1000);

const dir = mkdtempSync(join(tmpdir(), 'autopilot-e2e-'));
let stack: LocalStack;
let warp: ReturnType<typeof holdDelayedSends>;
const quiet = createLogger({ service: 'e2e', level: 'error' });

function policyForTheDay(): string {
  const policy = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../policy.json'), 'utf8'));
  policy.approvals.freezes = [
    {
      name: 'lunch freeze',
      start: new Date(berlin(13)).toISOString(),
      end: new Date(berlin(14)).toISOString(),
    },
  ];
  policy.sweeper.eventRules = [];
  policy.sweeper.staleConfigs = {
    ...policy.sweeper.staleConfigs,
    configs: ['new_checkout_copy', 'checkout_legacy_banner'],
    discover: false,
    graceDays: 0,
    dryRun: false,
  };
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

beforeAll(async () => {
  stack = await bootLocalStack({
    port: 0,
    stateDir: dir,
    policyPath: policyForTheDay(),
    sandbox: { now },
    sweepIntervalSeconds: false,
    queue: { visibilityTimeoutSeconds: 2, maxReceiveCount: 3 },
    worker: {
      waitTimeSeconds: 1,
      createHandler: ({ env, policyPath }) => {
        const deps = workerDepsFromEnv(env, { policy: loadPolicyFile(policyPath) });
        warp = holdDelayedSends(deps.sqs, now);
        return createWorker({ ...deps, sqs: warp.sqs, now: () => new Date(clock), logger: quiet });
      },
    },
    sweeper: {
      createHandler: ({ env, policyPath }) => {
        const sweeper = createSweeper({
          ...sweeperDepsFromEnv(env, { policy: loadPolicyFile(policyPath) }),
          logger: quiet,
        });
        return (_event: ScheduledEvent, context: Context) =>
          sweeper.run({ now: new Date(clock), remainingMs: () => context.getRemainingTimeInMillis() });
      },
    },
    webhook: {
      createApp: ({ env }) => createWebhookApp({ ...webhookDepsFromEnv(env, { logger: quiet }), now }),
    },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false },
  });
  expect(stack.components).toMatchObject({ sandbox: 'running', webhook: 'running', worker: 'running' });
});

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sandbox = () => {
  if (!stack.sandbox) throw new Error('no sandbox');
  return stack.sandbox;
};
const currentPhase = (trigger: string) => sandbox().state.triggers.get(trigger)?.currentPhaseID ?? '';
const approvals = (trigger: string) =>
  sandbox().requests.filter(
    (r) =>
      r.method === 'PUT' &&
      r.path.endsWith(`/release_pipeline_triggers/${trigger}/approve`) &&
      r.status === 200,
  ).length;
const text = (post: ReceivedPost) => JSON.stringify(post.body);
const channelPost = (...needles: string[]) =>
  stack.receiver.waitFor((p) => p.path === '/channel' && needles.every((n) => text(p).includes(n)), 15_000);

async function slash(command: string, responseId: string) {
  const response = await sendSigned(
    signedSlashCommand(
      stack.endpoints.webhookUrl,
      stack.signingSecret,
      {
        text: command,
        userId: 'U0ADMIN',
        teamId: 'T0001',
        responseUrl: stack.receiver.responseUrl(responseId),
      },
      slackNow(),
    ),
  );
  expect(response.status).toBe(200);
  return JSON.stringify(await response.json());
}

async function ciAsks(trigger: string, id: string): Promise<string> {
  const phase = currentPhase(trigger);
  const request: ActionRequest = {
    version: 1,
    action: 'approve_phase',
    triggerId: trigger,
    phaseId: phase,
    requestedBy: { source: 'ci', id: 'deploy.yml' },
    requestedAt: new Date(clock).toISOString(),
    requestId: id,
  };
  await sendActionRequest(stack.emulators.sqs, stack.endpoints.queueUrl, request);
  return phase;
}

async function sweep(): Promise<RunSummary> {
  return (await stack.runSweeper(new Date(clock))) as RunSummary;
}

async function eventually<T>(
  probe: () => T | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a day with console-autopilot', () => {
  it('defers a CI request before office hours and approves it when the window opens', async () => {
    clock = berlin(8); // 08:00 in Berlin, before the 09:00–17:00 window
    const phase = await ciAsks('trg_2', 'e2e-early');
    await channelPost('Deferred', 'trg_2');
    expect(approvals('trg_2')).toBe(0);
    expect(warp.held).toHaveLength(1);

    clock = berlin(9); // the window opens
    expect(await warp.release()).toBe(1);
    await channelPost('Done', 'trg_2');
    expect(approvals('trg_2')).toBe(1);
    expect(currentPhase('trg_2')).not.toBe(phase);
  });

  it('approves a phase a person asks for in chat, and replies to them', async () => {
    clock = berlin(10);
    const phase = currentPhase('trg_1');
    const queued = await slash(`approve trg_1 ${phase} canary is fine`, 'chat-approve');
    expect(queued).toContain('Queued');
    const reply = await stack.receiver.waitFor((p) => p.path === '/response/chat-approve', 15_000);
    expect(text(reply)).toContain('Done');
    expect(text(reply)).toContain('chat grant');
    expect(approvals('trg_1')).toBe(1);
  });

  it('denies a CI request during a freeze', async () => {
    clock = berlin(13, 30);
    await ciAsks('trg_4', 'e2e-frozen');
    const post = await channelPost('Denied', 'trg_4');
    expect(text(post)).toContain('freeze:lunch freeze');
    expect(approvals('trg_4')).toBe(0);
  });

  it('holds every automated mutation while paused and resumes them on resume', async () => {
    clock = berlin(15);
    expect(await slash('pause release review', 'pause')).toMatch(/paus/i);
    await ciAsks('trg_3', 'e2e-paused');
    await channelPost('Deferred', 'trg_3', 'pause');
    const paused = await sweep();
    expect(paused.stale.queued).toEqual([]);
    expect(paused.stale.skipped).toContainEqual(
      expect.objectContaining({ configId: 'new_checkout_copy', reason: 'paused' }),
    );
    expect(approvals('trg_3')).toBe(0);

    expect(await slash('resume', 'resume')).toMatch(/resum/i);
    clock = berlin(15, 20); // past the pause re-check
    expect(await warp.release()).toBe(1);
    await channelPost('Done', 'trg_3');
    expect(approvals('trg_3')).toBe(1);
  });

  it('queues a stale config for archiving and skips a protected one', async () => {
    clock = berlin(16);
    const run = await sweep();
    expect(run.stale.queued).toEqual(['new_checkout_copy']);
    expect(run.stale.skipped).toContainEqual(
      expect.objectContaining({ configId: 'checkout_legacy_banner', reason: 'protected' }),
    );
    await eventually(() => sandbox().state.configs.get('new_checkout_copy')?.archived, 'the archive');
    expect(sandbox().requests.filter((r) => r.path.endsWith('/archive') && r.status === 200)).toHaveLength(1);
  });

  it('asks a person when a rule says so, and approves when they click Approve', async () => {
    clock = berlin(16, 30);
    const phase = currentPhase('trg_6');
    await sendActionRequest(
      stack.emulators.sqs,
      stack.endpoints.queueUrl,
      {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_6',
        phaseId: phase,
        requestedBy: { source: 'schedule', id: 'nightly' },
        requestedAt: new Date(clock).toISOString(),
        requestId: 'e2e-ask',
      },
      // The test plays the sweeper, which vouches for schedule requests.
      { signer: localSigner(stack.env) },
    );
    const question = await channelPost('autopilot_approve', 'trg_6');
    const blocks = (
      question.body as { blocks?: Array<{ elements?: Array<{ action_id?: string; value?: string }> }> }
    ).blocks;
    const approve = blocks?.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'autopilot_approve');
    expect(approve?.value).toBeDefined();
    expect(approvals('trg_6')).toBe(0);

    const click = await sendSigned(
      signedInteraction(
        stack.endpoints.webhookUrl,
        stack.signingSecret,
        {
          userId: 'U0ADMIN',
          teamId: 'T0001',
          actionId: 'autopilot_approve',
          value: approve?.value as string,
          responseUrl: stack.receiver.responseUrl('clicked'),
        },
        slackNow(),
      ),
    );
    expect(click.status).toBe(200);
    await stack.receiver.waitFor((p) => p.path === '/response/clicked' && text(p).includes('Done'), 15_000);
    expect(approvals('trg_6')).toBe(1);
  });

  it('moves a poison message to the DLQ at once', async () => {
    await stack.emulators.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.endpoints.queueUrl,
        MessageBody: '{"version":1,"action":"launch_rockets"}',
      }),
    );
    let dead: Message | undefined;
    for (let i = 0; i < 20 && dead === undefined; i++) {
      const out = await stack.emulators.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: stack.endpoints.dlqUrl,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );
      dead = out.Messages?.[0];
    }
    expect(dead?.Body).toBe('{"version":1,"action":"launch_rockets"}');
    // At once, with the reason: it was never left on the queue to be retried.
    expect(dead?.MessageAttributes?.error?.StringValue).toContain('action');
    expect(stack.eventSource?.stats.left).toBe(0);
  });
});
