/**
 * An end told again by another pass (its writer died before telling it: told twice rather than
 * never) must be findable in the logs. The release tick telling a worker's untold denial logged
 * "stuck held request not ended here: another end was recorded first" although it had just posted
 * that end, and counted no `Decisions`; a worker copy telling its request's untold end logged an
 * ordinary outcome line. An operator explaining a second post could not find why. Each re-tell now
 * logs what happened with `retold: true`, and the tick counts the end it told in `Decisions`.
 *
 * The deployed tick and the worker on the emulators; the deaths are tables whose calls stop
 * answering right after the final lands (dyingAfterPut).
 */
import { expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { type Bench, basePolicy, benchResetEachTest, channelPostsAbout, dyingAfterPut } from './fixture.js';
import { deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

/** A copy of `id` (ci:`requester`, held since Monday 10:00) is decided by a worker that dies right after its final. */
async function deniedThenDied(bench: Bench, id: string, requester: string): Promise<void> {
  await bench.send({
    triggerId: `trg_${id}`,
    phaseId: 'ph_1',
    requestId: id,
    requestedBy: { source: 'ci', id: requester },
    requestedAt: '2026-11-23T10:00:00.000Z',
  });
  const dying = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'final');
  void bench.run(bench.worker({ table: dying.table }), await bench.receive());
  await dying.died;
  await bench.purge();
}

const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

it("the tick telling another pass's untold end logs it as told, marked retold, and counts it", async () => {
  const id = 'retold-by-tick';
  await holdStuck(bench, id, { requesterId: 'blocked' });
  const before = bench.slack.posts.length;
  // Thursday 09:00, before the expiry: a redriven copy is denied by its rule; the worker dies.
  bench.clock.now = new Date('2026-11-26T09:00:00Z');
  await deniedThenDied(bench, id, 'blocked');

  // 10:00:30, past the expiry: the tick ends the stuck wait, finds that denial untold and tells it.
  bench.clock.now = new Date('2026-11-26T10:00:30Z');
  const logLines: string[] = [];
  const metricLines: string[] = [];
  const metrics = createMetrics({
    service: 'worker',
    sink: (l) => metricLines.push(l),
    now: () => bench.clock.now.getTime(),
  });
  const logger = createLogger({ service: 'worker', sink: (l) => logLines.push(l) });
  const policy = parsePolicy(basePolicy(bench.slack.origin));
  await deployedTick(bench, policy, metrics, undefined, logger)({ time: bench.clock.now.toISOString() });

  expect(channelPostsAbout(bench, id, before)).toHaveLength(1);
  const lines = parsed(logLines).filter((l) => l.requestId === id);
  expect(lines.map((l) => l.message).join('\n')).not.toContain('not ended here');
  expect(lines.find((l) => l.retold === true)).toMatchObject({
    result: 'denied',
    rule: 'blocked CI is denied',
  });
  const decisions = parsed(metricLines).filter((l) => 'Decisions' in l && l.requestId === id);
  expect(decisions.map((l) => l.Outcome)).toEqual(['denied']);
});

it("a worker copy telling its request's untold end marks its line retold", async () => {
  const id = 'retold-by-copy';
  await holdStuck(bench, id, { requesterId: 'blocked' });
  bench.clock.now = new Date('2026-11-24T10:00:00Z');
  await deniedThenDied(bench, id, 'blocked');

  // Past the dead worker's claim, SQS delivers the copy again.
  bench.clock.now = new Date('2026-11-24T10:05:00Z');
  await bench.send({
    triggerId: `trg_${id}`,
    phaseId: 'ph_1',
    requestId: id,
    requestedBy: { source: 'ci', id: 'blocked' },
    requestedAt: '2026-11-23T10:00:00.000Z',
  });
  const from = bench.logs.length;
  await bench.run(bench.worker(), await bench.receive());

  const told = bench.logs.slice(from).filter((l) => l.requestId === id && l.result === 'denied');
  expect(told).toHaveLength(1);
  expect(told[0]).toMatchObject({ rule: 'blocked CI is denied', retold: true });
});
