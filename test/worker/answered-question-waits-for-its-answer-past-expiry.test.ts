/**
 * An Approve click taken a minute before its question's expiry (asked `requestedAt` +
 * maxDeferHours) queues the clicker's copy, "approved… queued". The question's own look just past
 * its expiry (the release tick sends it back, the worker decides) denied it as expired while that
 * copy was still on its way (a back-off, a backlog); the copy then found the question ended and
 * passed that denial on: the person who approved in time was told "denied". An answered question
 * now waits for its answer past its expiry (also a stuck one, which the tick would end itself):
 * the copy ends it. Should the copy give up (the answer is taken off), or be gone longer than any
 * copy can live on the queue, the next look denies it as expired as before.
 * The real webhook, release tick and worker on the emulators and the sandbox, on the bench's clock.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { ApiConnectionError } from '../../src/console/index.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT, QUEUE_VISIBILITY_SECONDS } from '../../src/queue/redrive.js';
import { readFinal } from '../../src/state/audit.js';
import { heldItemKey, listHeld, MAX_RELEASES } from '../../src/state/held.js';
import { MAX_DELAY_SECONDS } from '../../src/worker/defer.js';
import { releaseHeld } from '../../src/worker/release.js';
import { approveThrows, basePolicy, benchResetEachTest, onReceive } from './fixture.js';
import { approveAt, askQuestion, releaseDeps } from './questions.js';

const bench = benchResetEachTest(); // each test at 10:00 on the 23rd, the queue empty

const CLICKED_AT = Date.parse('2026-11-26T09:59:00Z'); // the question expires at 10:00 on the 26th

/** Asked at 10:00 on the 23rd, approved by U0ADMIN at 09:59 on the 26th: the click's copy, received (on its way). */
async function approvedJustBeforeExpiry(triggerId: string, asked: string) {
  const value = await askQuestion(bench, triggerId, asked);
  expect(await approveAt(bench, value, CLICKED_AT, clickPath(asked))).toBe('queued');
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);
  return copy;
}

/** The release tick at `at`, and the worker on whatever it sent back: the ids sent back. */
async function tickAt(at: string, maxReceiveCount?: number): Promise<string[]> {
  bench.clock.now = new Date(at);
  // The deployed tick has the worker's policy (maxDeferHours) and the queue's maxReceiveCount, as here.
  const tick = {
    ...releaseDeps(bench),
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    ...(maxReceiveCount ? { maxReceiveCount } : {}),
  };
  const { released } = await releaseHeld(tick, bench.clock.now);
  if (released.length > 0) await bench.run(bench.worker(), await bench.receive());
  return released;
}

const clickPath = (asked: string) => `/actions/T0001/${asked}/click`;

/** What the clicker was told about their Approve on `asked`. */
const toldClicker = (asked: string) =>
  bench.slack.posts.filter((p) => p.path === clickPath(asked)).map((p) => JSON.stringify(p.body));

it('carries out an Approve clicked before expiry whose copy runs after the question’s expiry look', async () => {
  const copy = await approvedJustBeforeExpiry('trg_aw1', 'aw-asked-1');
  const promised = toldClicker('aw-asked-1').length;

  // 10:00:30: the question's look just past its expiry. Its answer is on its way: not denied.
  await tickAt('2026-11-26T10:00:30Z');

  // 10:03: the copy, delayed, reaches the worker: the change is made, and the clicker told so.
  bench.clock.now = new Date('2026-11-26T10:03:00Z');
  await bench.run(bench.worker(), copy);
  expect(bench.approvals('trg_aw1')).toBe(1);
  const told = toldClicker('aw-asked-1').slice(promised);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect(told[0]).not.toContain('maxDeferHours');
  // The question ends with its answer: a CI gate on the asked id sees the change made.
  expect(await outcomeNow(bench.table, 'aw-asked-1')).toMatchObject({ exitCode: 0, result: 'approved' });
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('aw-asked-1');
});

it('denies the question as expired at the next look once its answer gave up without reaching the platform', async () => {
  const copy = await approvedJustBeforeExpiry('trg_aw2', 'aw-asked-2');
  await tickAt('2026-11-26T10:00:30Z');

  // 10:02: the copy's last receive fails before any call: given up, the question open again.
  bench.clock.now = new Date('2026-11-26T10:02:00Z');
  const refused = approveThrows(bench, () => new ApiConnectionError('connect ECONNREFUSED', false));
  await bench.run(refused, onReceive(copy, MAX_RECEIVE_COUNT));
  expect(toldClicker('aw-asked-2').join('')).toContain('after 5 attempts');

  // The next look ends the question as it would have: expired, nothing changed.
  expect(await tickAt('2026-11-26T10:03:00Z')).toContain('aw-asked-2');
  expect(await readFinal(bench.table, 'aw-asked-2')).toMatchObject({
    result: 'denied',
    rule: 'maxDeferHours',
  });
  expect(bench.approvals('trg_aw2')).toBe(0);
});

it('denies the question as expired once its answer’s copy can no longer be alive on the queue', async () => {
  // The copy is received and never comes back (its worker died, and so on): silent.
  await approvedJustBeforeExpiry('trg_aw3', 'aw-asked-3');
  const copyLifeMs = MAX_RECEIVE_COUNT * (QUEUE_VISIBILITY_SECONDS + MAX_DELAY_SECONDS) * 1000;

  // Until the copy's longest life on the queue is over, the question waits for it.
  expect(await tickAt(new Date(CLICKED_AT + copyLifeMs - 60_000).toISOString())).not.toContain('aw-asked-3');
  expect(await readFinal(bench.table, 'aw-asked-3')).toBeUndefined();

  // Then it is denied as expired, as before: nobody is left waiting on a copy that is gone.
  expect(await tickAt(new Date(CLICKED_AT + copyLifeMs + 1000).toISOString())).toContain('aw-asked-3');
  expect(await readFinal(bench.table, 'aw-asked-3')).toMatchObject({
    result: 'denied',
    rule: 'maxDeferHours',
  });
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('aw-asked-3');
});

it('waits as long as the deployed maxReceiveCount lets the copy live, not the default', async () => {
  // A stack that raised the queue's maxReceiveCount to 10: the copy may come back twice as long.
  await approvedJustBeforeExpiry('trg_aw5', 'aw-asked-5');
  const defaultLifeMs = MAX_RECEIVE_COUNT * (QUEUE_VISIBILITY_SECONDS + MAX_DELAY_SECONDS) * 1000;
  const raisedLifeMs = 10 * (QUEUE_VISIBILITY_SECONDS + MAX_DELAY_SECONDS) * 1000;
  expect(await tickAt(new Date(CLICKED_AT + defaultLifeMs + 60_000).toISOString(), 10)).not.toContain(
    'aw-asked-5',
  );
  expect(await readFinal(bench.table, 'aw-asked-5')).toBeUndefined();
  expect(await tickAt(new Date(CLICKED_AT + raisedLifeMs + 1000).toISOString(), 10)).toContain('aw-asked-5');
});

it('does not end a stuck answered question as expired while its answer is on its way', async () => {
  const copy = await approvedJustBeforeExpiry('trg_aw4', 'aw-asked-4');
  // Its sends never came back (three, each dead-lettered, say): the tick would end it itself.
  await bench.table.client.send(
    new UpdateItemCommand({
      TableName: bench.table.tableName,
      Key: heldItemKey('aw-asked-4'),
      UpdateExpression: 'SET releases = :n',
      ExpressionAttributeValues: { ':n': { N: String(MAX_RELEASES) } },
    }),
  );
  await tickAt('2026-11-26T10:00:30Z');
  expect(await readFinal(bench.table, 'aw-asked-4')).toBeUndefined();

  bench.clock.now = new Date('2026-11-26T10:03:00Z');
  await bench.run(bench.worker(), copy);
  expect(bench.approvals('trg_aw4')).toBe(1);
  expect(toldClicker('aw-asked-4').join('')).not.toContain('maxDeferHours');
  expect(await outcomeNow(bench.table, 'aw-asked-4')).toMatchObject({ exitCode: 0, result: 'approved' });
});
