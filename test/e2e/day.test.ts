/**
 * A day with console-autopilot, end to end and in-process: the local stack (sandbox, fauxqs,
 * dynalite, the real webhook app on a port, the worker behind the emulated event source
 * mapping, the sweeper) with one injected clock driving the business time of every part —
 * the webhook (signature window, `requestedAt`), the worker, its release tick, the sweeper and
 * the sandbox — and the Slack signatures the test makes. Time moves through one fixed Monday in Berlin, so
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
import { listHeld } from '../../src/state/held.js';
import type { RunSummary } from '../../src/sweeper/summary.js';
import { createSweeper } from '../../src/sweeper/sweeper.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import { sweeperDepsFromEnv, webhookDepsFromEnv, workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { loadPolicyFile } from '../../src/wiring/policy-file.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { createWorker, createWorkerEntry } from '../../src/worker/worker.js';
import { runningFrom } from '../helpers/clock.js';
import { queueCounter } from './queue-count.js';

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
/** The worker's one clock (its Console client's too): at the test's time, moving on from there. */
const workerClock = runningFrom(now);

const dir = mkdtempSync(join(tmpdir(), 'autopilot-e2e-'));
let stack: LocalStack;
/** Every message the worker and its release tick send to the actions queue. */
const sent = queueCounter();
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
        const deps = workerDepsFromEnv(env, { policy: loadPolicyFile(policyPath), clock: workerClock });
        return createWorker({ ...deps, sqs: sent.wrap(deps.sqs), logger: quiet });
      },
    },
    // The release tick as deployed (the worker's entry with a scheduled event), run by the test
    // at the injected clock's time rather than every real minute.
    release: {
      intervalSeconds: false,
      createHandler: ({ env, policyPath }) => {
        const deps = workerDepsFromEnv(env, { policy: loadPolicyFile(policyPath), clock: workerClock });
        const entry = createWorkerEntry({ ...deps, sqs: sent.wrap(deps.sqs), logger: quiet });
        return (event: ScheduledEvent, context: Context) => entry(event, context);
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

/** One release tick at the injected clock's time; the ids it sent back. */
async function tick(): Promise<string[]> {
  return ((await stack.runRelease(new Date(clock))) as ReleaseSummary).released;
}

const table = () => ({ client: stack.emulators.dynamo, tableName: stack.endpoints.tableName });
const heldIds = async () => (await listHeld(table())).map((h) => h.requestId).sort();

/** Waits (real time) until an async probe holds: the worker runs behind the emulated event source. */
async function until(probe: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
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
    await until(async () => (await heldIds()).includes('e2e-early'), 'the held record');

    clock = berlin(8, 59);
    expect(await tick()).toEqual([]);
    clock = berlin(9); // the window opens: the next tick sends it back
    expect(await tick()).toEqual(['e2e-early']);
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

  it('lets people see, cancel and release held work: pause, three held, listed, one cancelled, resume, two done', async () => {
    clock = berlin(11);
    expect(await slash('pause checking the ramp', 'pause-11')).toMatch(/paus/i);
    for (const [n, trigger] of [
      [1, 'trg_7'],
      [2, 'trg_8'],
      [3, 'trg_9'],
    ] as const)
      await ciAsks(trigger, `e2e-held-${n}`);
    const ids = ['e2e-held-1', 'e2e-held-2', 'e2e-held-3'];
    await until(async () => (await heldIds()).join() === ids.join(), 'three held requests');

    const listed = await slash('held', 'held-list');
    for (const id of ids) expect(listed).toContain(id);
    expect(listed).toContain('paused');
    expect(listed).toContain('on resume');

    clock = berlin(11, 5);
    expect(await slash('cancel e2e-held-2 wrong ramp', 'cancel-2')).toContain('cancelled');
    // The tick sends the cancelled one back at once (pause or not); the worker ends it and tells the channel.
    expect(await tick()).toEqual(['e2e-held-2']);
    await channelPost('Cancelled', 'trg_8');
    expect(await heldIds()).toEqual(['e2e-held-1', 'e2e-held-3']);

    clock = berlin(11, 10);
    expect(await slash('resume', 'resume-11')).toMatch(/resum/i);
    clock = berlin(11, 10) + 60_000; // the first tick after resume: within 60 s
    expect((await tick()).sort()).toEqual(['e2e-held-1', 'e2e-held-3']);
    await channelPost('Done', 'trg_7');
    await channelPost('Done', 'trg_9');
    expect([approvals('trg_7'), approvals('trg_8'), approvals('trg_9')]).toEqual([1, 0, 1]);
    expect(await heldIds()).toEqual([]);
    // Each was sent to the queue once by the tick, never by a delayed copy.
    expect(ids.map((id) => sent.of(id))).toEqual([1, 1, 1]);

    const cancelledStory = await slash('why e2e-held-2', 'why-2');
    expect(cancelledStory).toContain('deferred');
    expect(cancelledStory).toContain('cancelled by slack:U0ADMIN');
    // Released and approved at the same injected instant: both told, in either order.
    const doneStory = await slash('why e2e-held-1', 'why-1');
    expect(doneStory).toMatch(/deferred[\s\S]*(released[\s\S]*approved|approved[\s\S]*released)/);
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

    await until(async () => (await heldIds()).includes('e2e-paused'), 'the held record');
    clock = berlin(15, 20);
    expect(await tick()).toEqual([]); // still paused
    expect(await slash('resume', 'resume')).toMatch(/resum/i);
    clock = berlin(15, 21); // the next tick after resume
    expect(await tick()).toEqual(['e2e-paused']);
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
    // The asked request was held while it waited; the approval that answered it ended its hold.
    await until(async () => !(await heldIds()).includes('e2e-ask'), 'the answered question to end');
  });

  it('releases a request deferred two days to a window at its opening, with one queue message', async () => {
    clock = berlin(24 * 5 + 9); // Saturday 09:00 in Berlin: no office hours until Monday
    await ciAsks('trg_10', 'e2e-weekend');
    await until(async () => (await heldIds()).includes('e2e-weekend'), 'the held record');
    const held = (await listHeld(table())).find((h) => h.requestId === 'e2e-weekend');
    expect(held).toMatchObject({ why: 'window', nextLook: new Date(berlin(24 * 7 + 9)).toISOString() });
    // Two days of ticks cost nothing on the queue (a few of the 2,880 checked here).
    for (const hours of [1, 12, 24, 47]) {
      clock = berlin(24 * 5 + 9 + hours);
      expect(await tick()).toEqual([]);
    }
    clock = berlin(24 * 7 + 9); // Monday 09:00: the window opens
    expect(await tick()).toEqual(['e2e-weekend']);
    await channelPost('Done', 'trg_10');
    expect(approvals('trg_10')).toBe(1);
    expect(sent.of('e2e-weekend')).toBe(1);
    const story = await slash('why e2e-weekend', 'why-weekend');
    expect(story).toMatch(/deferred[\s\S]*(released[\s\S]*approved|approved[\s\S]*released)/);
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
