/**
 * The last copy standing tells. Two copies of one request (a producer retried SendMessage), both
 * put back with a 429 on their 4th receive and so both registered as live, come back together for
 * their last receive. Copy A claims the effect and calls; copy B finds A's claim and is put back to
 * wait for it (`otherCopy`). A's call is refused 429; A's give-up takes itself off, sees B still
 * registered and defers to it (tells nothing). B's give-up then took itself off and, failing with
 * `otherCopy`, told nothing either: both messages went to the DLQ, and the requester, the channel
 * and the CI gate never heard any end. A give-up now marks the live-copies item in the update that
 * takes it off, and the copy that takes itself off last with that mark there tells the give-up.
 * In the other order (B off first, with no mark, while A is still live) only A tells.
 * The interleavings are landed with hooks (no sleeping). Real worker on fauxqs and dynalite, the
 * Console API sandbox refusing with 429s, the Slack stand-in.
 */
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { approvingAfter, copiesBench, twoCopies } from './copies.js';
import { onReceive } from './fixture.js';

const bench = copiesBench();

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

/**
 * The request sent twice, both copies refused 429 on their 4th receive (each put back for 15 min
 * and registered as live), then the clock at their last receive, inside their registrations.
 */
async function twoCopiesAtTheirLastReceive(triggerId: string, requestId: string) {
  const [copyA, copyB] = await twoCopies(bench, triggerId, requestId);
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  const plain = bench.worker();
  expect((await bench.run(plain, onReceive(copyB, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(1);
  expect((await bench.run(plain, onReceive(copyA, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(1);
  bench.clock.now = new Date('2026-11-23T10:15:05Z');
  return { copyA, copyB };
}

/**
 * Told "given up" once: one reply to the requester, one post in the channel, and one `dead-lettered`
 * audit record (what the CI gate reads).
 */
async function expectGivenUpToldOnce(requestId: string): Promise<void> {
  const givenUp = (path: string) =>
    bench.slack.posts.filter(
      (p) =>
        p.path === path &&
        /after 5 attempts/.test(JSON.stringify(p.body)) &&
        JSON.stringify(p.body).includes(requestId),
    );
  expect(givenUp(`/actions/${requestId}`)).toHaveLength(1);
  expect(givenUp('/services/channel')).toHaveLength(1);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['dead-lettered']);
}

it('two copies on their last receive together, the give-up first: the copy deferred to tells it', async () => {
  const requestId = 'ci-sent-twice-last';
  const { copyA, copyB } = await twoCopiesAtTheirLastReceive('trg_5', requestId);
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
  const workerA = bench.worker({
    client: approvingAfter(bench, async () => {
      bRun = bench.run(workerB, onReceive(copyB, MAX_RECEIVE_COUNT));
      await bAtPutBack.done;
    }),
  });

  expect((await bench.run(workerA, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
  aRunEnded.fire();
  expect(bRun).toBeDefined();
  expect((await bRun!).batchItemFailures).toHaveLength(1);

  // The race landed: A deferred to B, and B failed waiting for A's claim.
  expect(bench.logs.some((l) => l.message.includes('defers to the live copy'))).toBe(true);
  expect(JSON.stringify(bench.logs)).toContain('is being executed by another copy');
  // Neither copy comes back (both were on their last receive): told once, with A's failure (its 429).
  await expectGivenUpToldOnce(requestId);
  const reply = bench.slack.posts.find((p) => p.path === `/actions/${requestId}`);
  expect(reply?.body.text).toContain('429');
  expect(reply?.body.text).not.toContain('executed by another copy');
});

it('two copies on their last receive together, the waiting copy off first: only the give-up tells', async () => {
  const requestId = 'ci-sent-twice-last-waiter-first';
  const { copyA, copyB } = await twoCopiesAtTheirLastReceive('trg_6', requestId);
  let bRun: Awaited<ReturnType<typeof bench.run>> | undefined;
  // While A holds the claim, B runs to its end: it waits for A's claim, A is still live, no give-up
  // happened yet (no mark): B tells nothing. Then A's call is refused and A, the last, tells.
  const workerA = bench.worker({
    client: approvingAfter(bench, async () => {
      bRun = await bench.run(bench.worker(), onReceive(copyB, MAX_RECEIVE_COUNT));
      expect(postsAbout(requestId)).toEqual([]);
    }),
  });
  expect((await bench.run(workerA, onReceive(copyA, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
  expect(bRun?.batchItemFailures).toHaveLength(1);
  expect(JSON.stringify(bench.logs)).toContain('is being executed by another copy');
  await expectGivenUpToldOnce(requestId);
});
