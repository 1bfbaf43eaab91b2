/**
 * The release tick ends a stuck held wait past its expiry (src/worker/stuck.ts). A wait becomes
 * stuck at its third send, while that third copy is still on its way: when the copy reaches a
 * worker just before the expiry, the worker approves it and calls the Console API. The tick that
 * runs during that call (the expiry has passed by now) ended the request as denied ("No longer
 * tried, but it may have been done") and wrote its final; the worker's call then succeeded and it
 * told "Done". Two outcomes for one request, and the final (what a CI gate's `enqueue --wait` and
 * `why` read) said *denied* for a phase that was approved. The real worker and tick on the
 * emulators; the Console call is held open by the test.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { isStuck, listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { basePolicy, benchResetEachTest, channelPostsAbout } from './fixture.js';
import { releaseDeps } from './questions.js';
import { holdForWindow } from './stuck.js';

const bench = benchResetEachTest();

it('a stuck wait whose last copy is being carried out when its expiry passes is told one outcome, the true one', async () => {
  const requestId = 'sm-1';
  // Held for a window since 10:00 on the 23rd: it expires 72 hours later, at 2026-11-26T10:00:00Z.
  await holdForWindow(bench, requestId, { triggerId: 'trg_sm' });
  const policy = parsePolicy(basePolicy(bench.slack.origin));
  const tick = { ...releaseDeps(bench), policy, slack: { allowedOrigins: [bench.slack.origin] } };
  // Two sends never come back (lost); the third is sent late, just before the expiry.
  await releaseHeld(tick, new Date('2026-11-26T09:20:00Z'));
  await bench.purge();
  await releaseHeld(tick, new Date('2026-11-26T09:40:00Z'));
  await bench.purge();
  expect((await releaseHeld(tick, new Date('2026-11-26T09:59:00Z'))).released).toEqual([requestId]);
  expect(isStuck((await listHeld(bench.table)).find((h) => h.requestId === requestId)!)).toBe(true);

  // The third copy reaches a worker at 09:59:50, in office hours and before the expiry: approved.
  let entered!: () => void;
  const inCall = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let approvals = 0;
  const client = {
    releasePipelineTriggers: {
      approve: async () => {
        entered();
        await gate;
        approvals += 1;
        return {};
      },
    },
    experiments: { disableGroups: async () => ({}) },
    dynamicConfigs: { archive: async () => ({}) },
  };
  bench.clock.now = new Date('2026-11-26T09:59:50Z');
  const before = bench.slack.posts.length;
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);
  const run = bench.run(bench.worker({ client }), copy);
  await inCall;

  // The tick runs while the call is in flight; the expiry has passed by its time.
  await releaseHeld(tick, new Date('2026-11-26T10:00:05Z'));
  letGo();
  expect((await run).batchItemFailures).toEqual([]);
  expect(approvals).toBe(1);

  const told = channelPostsAbout(bench, requestId, before);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('Done');
  // The CI gate reads what happened: approved (exit 0).
  expect(await outcomeNow(bench.table, requestId)).toMatchObject({ exitCode: 0, result: 'approved' });
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(requestId);
});
