/**
 * U0ADMIN clicks Approve at 09:59 on a question expiring at 10:00 ("approved… queued"); the
 * message is not replaced yet (or its replacement failed) and U0ADMIN clicks Approve once more at
 * 10:00:10. That second click is the same person's (a repeat: openQuestion lets it past the
 * expiry) and it rewrote the question's `answeredAt` to 10:00:10, past the expiry. The release
 * tick then no longer saw the question as answered in time (answer-pending.ts), sent it back, and
 * the worker denied it as expired while the 09:59 copy was on its way: the person who approved in
 * time was told "denied". The first answer's time is the one that counts; a repeat keeps it.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { basePolicy, benchResetEachTest } from './fixture.js';
import { approveAt, askQuestion, releaseDeps } from './questions.js';

const bench = benchResetEachTest(); // each test at 10:00 on the 23rd, the queue empty

const CLICKED_AT = Date.parse('2026-11-26T09:59:00Z'); // the question expires at 10:00 on the 26th
const AGAIN_AT = Date.parse('2026-11-26T10:00:10Z'); // the same person's second click
const clickPath = '/actions/T0001/rc-asked-1/click';

it('keeps a question approved in time waiting for its answer when the same person clicks Approve again past the expiry', async () => {
  const value = await askQuestion(bench, 'trg_rc1', 'rc-asked-1');
  expect(await approveAt(bench, value, CLICKED_AT, clickPath)).toBe('queued');
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);

  // 10:00:10: the same person clicks again (a repeat passes); its copy is on its way too.
  await approveAt(bench, value, AGAIN_AT, '/actions/T0001/rc-asked-1/again');
  const again = await bench.receive();
  const held = (await listHeld(bench.table)).find((h) => h.requestId === 'rc-asked-1');
  // The answer was given at 09:59, before the expiry.
  expect(held?.answeredAt).toBe(new Date(CLICKED_AT).toISOString());
  const promised = bench.slack.posts.filter((p) => p.path === clickPath).length;

  // 10:00:30: the question's look just past its expiry: its answer is on its way, not sent back.
  bench.clock.now = new Date('2026-11-26T10:00:30Z');
  const tick = { ...releaseDeps(bench), policy: parsePolicy(basePolicy(bench.slack.origin)) };
  const { released } = await releaseHeld(tick, bench.clock.now);
  if (released.length > 0) await bench.run(bench.worker(), await bench.receive());
  expect(await readFinal(bench.table, 'rc-asked-1')).toBeUndefined();

  // 10:03: the first click's copy: the change is made and the clicker told so.
  bench.clock.now = new Date('2026-11-26T10:03:00Z');
  await bench.run(bench.worker(), copy);
  if (again.Records.length > 0) await bench.run(bench.worker(), again);
  expect(bench.approvals('trg_rc1')).toBe(1);
  const told = bench.slack.posts
    .filter((p) => p.path === clickPath)
    .slice(promised)
    .map((p) => JSON.stringify(p.body))
    .join('');
  expect(told).toContain('Done');
  expect(told).not.toContain('maxDeferHours');
  expect(await outcomeNow(bench.table, 'rc-asked-1')).toMatchObject({ exitCode: 0, result: 'approved' });
});
