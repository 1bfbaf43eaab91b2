/**
 * An Approve click's copy whose attempt may have reached the platform (a timeout in flight) and
 * that is then given up on its last receive keeps the question answered and held: the give-up
 * notice says the change may have been made. When the question then expired, the worker announced
 * ":no_entry: Denied: approve phase …" to the channel, telling people the change was not made when
 * it may have been. The expiry now says that an attempt may have made it, and asks to check. The
 * real webhook, worker and release tick on the emulators.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { ApiTimeoutError } from '../../src/console/index.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { approveThrows, benchResetEachTest, onReceive } from './fixture.js';
import { askQuestion, clickApprove, releaseDeps } from './questions.js';

const bench = benchResetEachTest(); // each test at 10:00 on the 23rd, the queue empty

it('does not announce a denial at expiry when the approved copy may have made the change', async () => {
  const value = await askQuestion(bench, 'trg_er1', 'er-asked-1');
  await clickApprove(bench, value);
  // The approved copy's call times out after it left (it may have approved the phase), on the
  // record's last receive: it is given up, "an attempt may have reached the Console API".
  const timingOut = approveThrows(bench, () => new ApiTimeoutError('no answer within 10 ms'));
  await bench.run(timingOut, onReceive(await bench.receive(), MAX_RECEIVE_COUNT));
  expect(JSON.stringify(bench.slack.posts.at(-1)?.body)).toContain('may have reached');
  expect((await listHeld(bench.table)).find((h) => h.requestId === 'er-asked-1')?.answeredBy).toBe('U0ADMIN');

  // 72 hours after it was asked the question expires: the tick sends it back, the worker ends it.
  bench.clock.now = new Date('2026-11-26T10:01:00Z');
  expect((await releaseHeld(releaseDeps(bench), bench.clock.now)).released).toContain('er-asked-1');
  const before = bench.slack.posts.length;
  await bench.run(bench.worker(), await bench.receive());

  const told = bench.slack.posts
    .slice(before)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body));
  expect(told).toHaveLength(1);
  expect(told[0]).not.toContain('Denied');
  expect(told[0]).toContain('may have');
  expect(told[0]).toContain('check whether the change was made');
  // The CI gate on the asked id reads the same warning, not a bare "expired".
  const asked = await outcomeNow(bench.table, 'er-asked-1');
  expect(asked.reason).toContain('check whether the change was made');
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('er-asked-1');
});
