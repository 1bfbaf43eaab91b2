/**
 * The release tick telling a worker's own end of a stuck wait. A copy of the stuck request,
 * redriven from the DLQ past its expiry, is denied by the worker (`maxDeferHours`, a policy
 * decision) and the worker dies right after writing its final. The next tick, ending the stuck
 * wait at its expiry, finds that same end (denied, maxDeferHours) written and untold, and tells it:
 * its audit record said `stuckExpired` (the tick's own housekeeping) although the tick never ended
 * it, and `policy replay` counted the worker's decision as a stuck wait the tick ended. The record
 * says what the stored end was.
 *
 * The deployed tick and the worker on the emulators; the death is a table whose calls stop
 * answering right after the final lands (dyingAfterPut).
 */
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { replayReport } from '../cli/replay-run.js';
import { basePolicy, benchResetEachTest, channelPostsAbout, dyingAfterPut } from './fixture.js';
import { deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

it("the tick telling a worker's untold maxDeferHours denial does not record it as its own expiry", async () => {
  const id = 'retold-worker-expiry';
  await holdStuck(bench, id);
  const before = bench.slack.posts.length;

  // Thursday 10:00:30, past maxDeferHours (72): a copy redriven from the DLQ is denied by the
  // worker, which dies right after its final.
  bench.clock.now = new Date('2026-11-26T10:00:30Z');
  await bench.send({
    triggerId: `trg_${id}`,
    phaseId: 'ph_1',
    requestId: id,
    requestedBy: { source: 'ci', id: 'deploy' },
    requestedAt: '2026-11-23T10:00:00.000Z',
  });
  const dying = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'final');
  void bench.run(bench.worker({ table: dying.table }), await bench.receive());
  await dying.died;
  await bench.purge();

  // 10:05, past the worker's claim: the tick finds the wait stuck and expired, and its end untold.
  bench.clock.now = new Date('2026-11-26T10:05:00Z');
  await deployedTick(
    bench,
    parsePolicy(basePolicy(bench.slack.origin)),
  )({ time: bench.clock.now.toISOString() });

  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
  expect(channelPostsAbout(bench, id, before)).toHaveLength(1);
  const ends = (await readAudit(bench.table, id)).filter((r) => r.result === 'denied');
  expect(ends).toHaveLength(1);
  expect(ends[0]).toMatchObject({ rule: 'maxDeferHours' });
  expect(ends[0]?.stuckExpired).toBeUndefined();

  const report = await replayReport(bench.table, basePolicy(bench.slack.origin));
  expect(report.stuckExpired).toBe(0);
});
