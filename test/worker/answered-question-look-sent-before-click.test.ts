/**
 * The release tick's hourly look sends a question back at 09:00 (it expires at 10:00); that copy
 * reaches the worker only at 10:01 (a back-off, a backlog). Meanwhile U0ADMIN clicked Approve at
 * 09:59 ("approved… queued") and the click's copy is still on its way. The look's copy was denied
 * as expired (maxDeferHours), ending the question, and the click's copy then passed that denial
 * on: the person who approved in time was told "denied". The look's copy now leaves the question
 * held for its answer, as the tick does past its expiry (src/worker/answer-pending.ts): the click's
 * copy ends it. The real webhook, release tick and worker on the emulators, on the bench's clock.
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
const clickPath = '/actions/T0001/lb-asked-1/click';

it('does not deny as expired a question approved in time when its earlier look arrives past the expiry', async () => {
  const value = await askQuestion(bench, 'trg_lb1', 'lb-asked-1');

  // 09:00: the tick's hourly look sends the question back; that copy is held up (not run yet).
  bench.clock.now = new Date('2026-11-26T09:00:00Z');
  const tick = { ...releaseDeps(bench), policy: parsePolicy(basePolicy(bench.slack.origin)) };
  expect((await releaseHeld(tick, bench.clock.now)).released).toContain('lb-asked-1');
  const look = await bench.receive();
  expect(look.Records).toHaveLength(1);

  // 09:59: Approve, in time; the click's copy is on its way too.
  expect(await approveAt(bench, value, CLICKED_AT, clickPath)).toBe('queued');
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);
  const promised = bench.slack.posts.filter((p) => p.path === clickPath).length;

  // 10:01: the look's copy reaches the worker past the expiry. The answer is on its way: not denied.
  bench.clock.now = new Date('2026-11-26T10:01:00Z');
  await bench.run(bench.worker(), look);
  expect(await readFinal(bench.table, 'lb-asked-1')).toBeUndefined();
  expect((await listHeld(bench.table)).find((h) => h.requestId === 'lb-asked-1')?.answeredBy).toBe('U0ADMIN');

  // 10:03: the click's copy: the change is made, the clicker told so, the question ends approved.
  bench.clock.now = new Date('2026-11-26T10:03:00Z');
  await bench.run(bench.worker(), copy);
  expect(bench.approvals('trg_lb1')).toBe(1);
  const told = bench.slack.posts
    .filter((p) => p.path === clickPath)
    .slice(promised)
    .map((p) => JSON.stringify(p.body));
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect(told[0]).not.toContain('maxDeferHours');
  expect(await outcomeNow(bench.table, 'lb-asked-1')).toMatchObject({ exitCode: 0, result: 'approved' });
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('lb-asked-1');
});
