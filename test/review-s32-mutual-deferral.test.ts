/**
 * Review of s32-giveup: two copies of one request (a producer retried SendMessage), both put back
 * with a 429 on their 4th receive and so both registered as live, come back together for their
 * last receive. Copy A claims the effect and calls; copy B finds A's claim and is put back to wait
 * for it (`otherCopy`). A's call is refused 429; A's give-up takes itself off, sees B still
 * registered and defers to it (tells nothing). B's give-up then takes itself off and, failing with
 * `otherCopy`, tells nothing either. Both messages go to the DLQ; the requester, the channel and
 * the CI gate never hear any end. The interleaving is landed with hooks (no sleeping): A's call is
 * answered only once B has reached its put-back, and B's put-back returns only after A's run ended.
 * Real worker on fauxqs and dynalite, the Console API sandbox refusing with 429s, the Slack stand-in.
 */
import { ChangeMessageVisibilityCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { beforeEach, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../src/console/index.js';
import { MAX_RECEIVE_COUNT } from '../src/queue/redrive.js';
import { readAudit } from '../src/state/audit.js';
import { benchForFile, onReceive } from './worker/fixture.js';

const bench = benchForFile({ client: { maxRetries: 0 } });

beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  bench.api.sandbox.setFaults({ errorRate: 0, rateLimitRate: 0 });
  bench.slack.posts.length = 0;
  await bench.purge();
  await bench.emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: bench.emulators.dlqUrl }));
});

const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;
const postsAbout = (requestId: string) =>
  bench.slack.posts.map((p) => JSON.stringify(p.body)).filter((body) => body.includes(requestId));

/** A promise and its resolve, to land one step of a race at a chosen point. */
function signal(): { done: Promise<void>; fire: () => void } {
  let fire = () => {};
  const done = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { done, fire };
}

it('two copies on their last receive together: one of them tells the request was given up', async () => {
  const requestId = 'ci-sent-twice-last';
  const request = {
    triggerId: 'trg_5',
    phaseId: current('trg_5'),
    requestId,
    reply: { slackResponseUrl: bench.slack.url(`/actions/${requestId}`) },
  };
  await bench.send(request);
  await bench.send(request);
  const { Records } = await bench.receive();
  expect(Records).toHaveLength(2);
  const copyA: SQSEvent = { Records: [Records[0]!] };
  const copyB: SQSEvent = { Records: [Records[1]!] };
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });

  // Their 4th receives, both refused 429: each is put back (15 min) and registered as live.
  const plain = bench.worker();
  expect((await bench.run(plain, onReceive(copyB, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(1);
  expect((await bench.run(plain, onReceive(copyA, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(1);

  // Fifteen minutes on, both come back for their last receive (inside their registrations).
  bench.clock.now = new Date('2026-11-23T10:15:05Z');
  const bAtPutBack = signal();
  const aRunEnded = signal();
  let bRun: ReturnType<typeof bench.run> | undefined;

  // B's worker: its put-back (ChangeMessageVisibility) returns only once A's run has ended.
  const sqsOfB = {
    send: async (command: unknown) => {
      if (command instanceof ChangeMessageVisibilityCommand) {
        bAtPutBack.fire();
        await aRunEnded.done;
      }
      return bench.emulators.sqs.send(command as never);
    },
  } as unknown as typeof bench.emulators.sqs;
  const workerB = bench.worker({ sqs: sqsOfB });

  // A's worker: while its claim is held, B runs and is put back to wait for it; then A's call goes out.
  const real = createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    timeoutMs: 2_000,
    maxRetries: 0,
    mutationBudget: false,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  const clientOfA = {
    ...real,
    releasePipelineTriggers: {
      ...real.releasePipelineTriggers,
      approve: async (...args: Parameters<typeof real.releasePipelineTriggers.approve>) => {
        bRun = bench.run(workerB, onReceive(copyB, MAX_RECEIVE_COUNT));
        await bAtPutBack.done;
        return real.releasePipelineTriggers.approve(...args);
      },
    },
  } as typeof real;
  const workerA = bench.worker({ client: clientOfA });

  expect((await bench.run(workerA, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
  aRunEnded.fire();
  expect(bRun).toBeDefined();
  expect((await bRun!).batchItemFailures).toHaveLength(1);

  // The race landed: A deferred to B, and B failed waiting for A's claim.
  expect(bench.logs.some((l) => l.message.includes('defers to the live copy'))).toBe(true);
  expect(JSON.stringify(bench.logs)).toContain('is being executed by another copy');

  // Neither copy comes back (both were on their last receive): the request was given up, and
  // its people and the CI gate must be told so once.
  const told = postsAbout(requestId);
  expect(told.filter((body) => /after 5 attempts/.test(body))).toHaveLength(1);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['dead-lettered']);
});

it('the live copy deferred to waits on another request for the same change at its last receive: still told', async () => {
  const requestId = 'ci-sent-twice-other-request';
  const phaseId = current('trg_8');
  const request = {
    triggerId: 'trg_8',
    phaseId,
    requestId,
    reply: { slackResponseUrl: bench.slack.url(`/actions/${requestId}`) },
  };
  await bench.send(request);
  await bench.send(request);
  const { Records } = await bench.receive();
  expect(Records).toHaveLength(2);
  const copyA: SQSEvent = { Records: [Records[0]!] };
  const copyB: SQSEvent = { Records: [Records[1]!] };
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  const plain = bench.worker();

  // B is refused 429 on its 4th receive (registered live, 15 min); A gives up on its last and defers to B.
  expect((await bench.run(plain, onReceive(copyB, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(1);
  bench.clock.now = new Date('2026-11-23T10:00:05Z');
  expect((await bench.run(plain, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
  expect(postsAbout(requestId)).toEqual([]);

  // B comes back for its last receive while another request for the same phase is being executed.
  bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  bench.clock.now = new Date('2026-11-23T10:15:05Z');
  await bench.send({ triggerId: 'trg_8', phaseId, requestId: 'ci-other-request' });
  // (B's message stays in the queue, its receipt handle valid: no purge here.)
  const received = await bench.receive();
  const other: SQSEvent = { Records: received.Records.filter((r) => r.body.includes('ci-other-request')) };
  expect(other.Records).toHaveLength(1);
  let bRun: Awaited<ReturnType<typeof bench.run>> | undefined;
  const real = createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    timeoutMs: 2_000,
    maxRetries: 0,
    mutationBudget: false,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  const clientOfOther = {
    ...real,
    releasePipelineTriggers: {
      ...real.releasePipelineTriggers,
      approve: async (...args: Parameters<typeof real.releasePipelineTriggers.approve>) => {
        bRun = await bench.run(plain, onReceive(copyB, MAX_RECEIVE_COUNT));
        return real.releasePipelineTriggers.approve(...args);
      },
    },
  } as typeof real;
  expect((await bench.run(bench.worker({ client: clientOfOther }), other)).batchItemFailures).toEqual([]);
  expect(bRun?.batchItemFailures).toHaveLength(1);
  expect(current('trg_8')).not.toBe(phaseId);

  // Both copies of the request are gone (DLQ): its people must hear an end (given up, or the change done).
  expect(postsAbout(requestId).length).toBeGreaterThan(0);
});
