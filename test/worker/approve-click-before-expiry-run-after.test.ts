/**
 * An Approve click a minute before the question expired (asked `requestedAt` + maxDeferHours) was
 * taken and told "approved … queued", but its copy kept the asked request's `requestedAt`: run
 * after the expiry (queue latency, a retry, a back-off) it was denied by maxDeferHours, so the
 * person who approved in time was promised the change and then told it was denied as expired. The
 * copy is the clicker's request, made when the webhook took the click: it is judged from then.
 * The real webhook (signed click, injected clock) and worker on the emulators and the sandbox.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { listHeld } from '../../src/state/held.js';
import { benchResetEachTest } from './fixture.js';
import { approveAt, askQuestion, repliesAt } from './questions.js';

const bench = benchResetEachTest(); // each test at 10:00 on the 23rd, the queue empty

it('carries out an Approve clicked a minute before expiry whose copy runs a minute after it', async () => {
  // Asked at 10:00 on the 23rd; the bench policy's maxDeferHours (72) expires it at 10:00 on the 26th.
  const value = await askQuestion(bench, 'trg_ax1', 'ax-asked-1');
  const path = '/actions/T0001/ax-1/click';
  expect(await approveAt(bench, value, Date.parse('2026-11-26T09:59:00Z'), path)).toBe('queued');
  expect(repliesAt(bench, path)).toContain('*approved*');
  const promised = bench.slack.posts.filter((p) => p.path === path).length;

  // The copy reaches the worker only after the expiry.
  bench.clock.now = new Date('2026-11-26T10:01:00Z');
  await bench.run(bench.worker(), await bench.receive());

  expect(bench.approvals('trg_ax1')).toBe(1);
  // What the clicker is told next (the copy's reply): the change made, not denied as expired.
  const told = bench.slack.posts
    .filter((p) => p.path === path)
    .slice(promised)
    .map((p) => JSON.stringify(p.body));
  expect(told).toHaveLength(1);
  expect(told[0]).not.toContain('maxDeferHours');
  expect(told[0]).toContain('Done');
  // The question ends with its answer, approved: a CI gate on the asked id sees the change made.
  expect(await outcomeNow(bench.table, 'ax-asked-1')).toMatchObject({ exitCode: 0, result: 'approved' });
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('ax-asked-1');
});
