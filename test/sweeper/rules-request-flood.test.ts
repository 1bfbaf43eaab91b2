/**
 * Review (action requests): event-rule requests had no per-run cap, unlike the notices (a32f101).
 * A client logging `release_checks_passed` in a loop, each with another `metadata.triggerID` the
 * shipped rule's `trg_*` admits, made the sweeper queue one request per event, and the worker told
 * each outcome to the channel as its own post: with the shipped policy, 300 events in one run were
 * 300 SQS messages, 201 channel posts (a "Denied" per trigger id the approval rule does not name,
 * copies for trg_1 replayed silently) and some 800 DynamoDB puts; under an `ask` rule, 300 questions
 * with buttons (each denied again at `maxDeferHours`). Now each rule queues at most
 * ENQUEUE_CAP_PER_RULE requests a run; the rest are counted (`rules.enqueueCapped`), marked (no
 * later run queues them, also after a crash), warned once per rule and summed up in one post.
 * Driven through the real sweeper and the real worker, on the emulators and the sandbox.
 */
import { readFileSync } from 'node:fs';
import { DeleteMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { createStateTable, type StateTable } from '../../src/state/table.js';
import { ENQUEUE_CAP_PER_RULE } from '../../src/sweeper/request-cap.js';
import { createSweeper } from '../../src/sweeper/sweeper.js';
import type { EventLike, SweeperDeps } from '../../src/sweeper/types.js';
import { benchForFile } from '../worker/fixture.js';
import { memoryLogger, sortedLog } from './harness.js';

const FLOOD = 300;
const RULE = 'approve canary after checks';
const bench = benchForFile();

const CHANNEL = '/services/channel';
const channelPosts = (from: number) =>
  bench.slack.posts
    .slice(from)
    .filter((p) => p.path === CHANNEL)
    .map((p) => String(p.body.text ?? ''));

/** The shipped policy, its channel the bench's Slack stand-in; `patch` changes it further. */
function shipped(patch: (p: PolicyInput) => void = () => {}): PolicyInput {
  const policy = JSON.parse(readFileSync(new URL('../../policy.json', import.meta.url), 'utf8'));
  policy.notifications = { slackWebhookUrl: bench.slack.url(CHANNEL) };
  patch(policy);
  return policy;
}

/**
 * A real canary check on trg_1, then a client logging `release_checks_passed` in a loop as the
 * shipped rule matches it, each naming another trigger (`trg_1000`, …): the client picks the id.
 */
function floodLog(now: number, tag: string): EventLike[] {
  const event = (i: number, triggerID: string): EventLike => ({
    timestamp: String(now - 600_000 + i * 1000),
    name: 'release_checks_passed',
    source: 'ci',
    userID: 'ci-bot',
    metadata: { phase: 'canary', triggerID, phaseID: 'ph_1', run: `${tag}-${i}` },
  });
  return [event(0, 'trg_1'), ...Array.from({ length: FLOOD - 1 }, (_, i) => event(i + 1, `trg_${1000 + i}`))];
}

let tables = 0;
async function freshTable(): Promise<StateTable> {
  const tableName = `request-flood-${++tables}-${Date.now()}`;
  await createStateTable(bench.emulators.dynamo, tableName);
  return { client: bench.emulators.dynamo, tableName };
}

/** The real sweeper over `log` on `table`, queueing onto the bench's queue; counts its SendMessage calls. */
function sweeper(table: StateTable, policy: PolicyInput, log: EventLike[], extra: Partial<SweeperDeps> = {}) {
  const sent = { count: 0 };
  const sqs = {
    send: (command: unknown) => {
      sent.count++;
      return bench.emulators.sqs.send(command as never);
    },
  } as unknown as SQSClient;
  const { logger, lines } = memoryLogger();
  const now = bench.clock.now.getTime();
  const instance = createSweeper({
    policy: parsePolicy(policy),
    events: sortedLog(() => log),
    table,
    sqs,
    queueUrl: bench.queue.queueUrl,
    signer: createRequesterSigner(async () => bench.requesterKeys),
    slackAllowedOrigins: [bench.slack.origin],
    clock: () => now,
    logger,
    // Pages and flushes of 100: the cap is the run's, not a flush's.
    pageSize: 100,
    flushEvery: 100,
    ...extra,
  });
  return { run: () => instance.run({ now: new Date(now), remainingMs: 120_000 }), sent, lines };
}

/** Runs the real worker on every message on the queue, as the event source mapping would. */
async function workQueue(table: StateTable, policy: PolicyInput): Promise<number> {
  const handler = bench.worker({ policy, table });
  let received = 0;
  for (;;) {
    const event = await bench.receive(10);
    if (event.Records.length === 0) return received;
    received += event.Records.length;
    const out = await bench.run(handler, event);
    const failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    for (const record of event.Records)
      if (!failed.has(record.messageId))
        await bench.queue.sqs.send(
          new DeleteMessageCommand({ QueueUrl: bench.queue.queueUrl, ReceiptHandle: record.receiptHandle }),
        );
  }
}

describe('a flood of events matching an enqueue rule', () => {
  beforeEach(async () => {
    bench.clock.now = new Date('2026-11-23T10:00:00Z');
    await bench.purge();
  });

  it('queues at most the cap per rule and run: the channel gets that many outcomes and one post for the rest', async () => {
    const table = await freshTable();
    const policy = shipped();
    const from = bench.slack.posts.length;
    const apiFrom = bench.api.sandbox.requests.length;
    const sweep = sweeper(table, policy, floodLog(bench.clock.now.getTime(), 'deny'));
    const summary = await sweep.run();

    const over = FLOOD - ENQUEUE_CAP_PER_RULE;
    expect(summary.rules.enqueued).toBe(ENQUEUE_CAP_PER_RULE);
    expect(summary.rules.enqueueCapped).toBe(over);
    expect(sweep.sent.count).toBe(ENQUEUE_CAP_PER_RULE);
    expect(sweep.lines.filter((l) => l.level === 'warn' && l.rule === RULE && l.cap)).toHaveLength(1);

    expect(await workQueue(table, policy)).toBe(ENQUEUE_CAP_PER_RULE);
    const posts = channelPosts(from);
    // The real check before the flood is approved; the flood's first 49 are denied one by one.
    expect(posts.filter((t) => t.startsWith(':white_check_mark: Done'))).toHaveLength(1);
    expect(posts.filter((t) => t.startsWith(':no_entry: Denied'))).toHaveLength(ENQUEUE_CAP_PER_RULE - 1);
    const summed = posts.filter((t) => t.includes('were not queued this run'));
    expect(summed).toHaveLength(1);
    expect(summed[0]).toContain(`${over} more action requests (\`trigger trg_1049 phase ph_1\``);
    expect(summed[0]).toContain(`from rule "${RULE}"`);
    expect(posts).toHaveLength(ENQUEUE_CAP_PER_RULE + 1);
    expect(bench.api.sandbox.requests.length - apiFrom).toBe(1);
  }, 60_000);

  it('asks at most the cap of questions a run under an ask rule', async () => {
    const table = await freshTable();
    const policy = shipped((p) => {
      const rules = p.approvals?.rules ?? [];
      rules.splice(2, 1, { name: 'events ask', when: { requesters: ['events:*'] }, decision: 'ask' });
    });
    const from = bench.slack.posts.length;
    const summary = await sweeper(table, policy, floodLog(bench.clock.now.getTime(), 'ask')).run();
    expect(summary.rules.enqueueCapped).toBe(FLOOD - ENQUEUE_CAP_PER_RULE);
    await workQueue(table, policy);
    const posts = channelPosts(from);
    expect(posts.filter((t) => t.startsWith('Approval needed'))).toHaveLength(ENQUEUE_CAP_PER_RULE);
    expect(posts).toHaveLength(ENQUEUE_CAP_PER_RULE + 1);
  }, 60_000);

  it('marks the requests over the cap: a rerun after a crash queues none of them', async () => {
    const table = await freshTable();
    const policy = shipped();
    const log = floodLog(bench.clock.now.getTime(), 'crash').slice(0, 200);
    let crash = true;
    const sweep = sweeper(table, policy, log, {
      hooks: {
        onStep(step, detail) {
          // The second flush (all of it over the cap) is done up to its enqueue, its cursor not saved.
          const ids = (detail.requestIds as string[] | undefined) ?? ['x'];
          if (crash && step === 'enqueue' && ids.length === 0) throw new Error('crash');
        },
      },
    });
    await expect(sweep.run()).rejects.toThrow('crash');
    expect(sweep.sent.count).toBe(ENQUEUE_CAP_PER_RULE);
    crash = false;
    const again = await sweep.run();
    expect(again.events.newEvents).toBe(100);
    expect(again.rules.enqueued + again.rules.enqueueCapped).toBe(0);
    expect(sweep.sent.count).toBe(ENQUEUE_CAP_PER_RULE);
  }, 60_000);
});
