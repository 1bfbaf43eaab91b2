/**
 * A person told "Denied" is never followed by the change. The worker asks about a schedule's
 * request; a new policy approves schedules, and its hourly look (a copy of the asked request)
 * decides "approve" at 10:20 and is slow to go on (paused at its effect claim, before its executing
 * gate). U0ADMIN clicks Deny meanwhile: the veto is written, no copy holds the executing mark, so the
 * click was answered "Denied … Automation will not do it"; the slow copy then passed its gate (the
 * veto is on another item, its decision was made before it) and approved the phase. Now the Deny
 * leaves its mark on the held item (`deniedBy`, only while no copy is executing it) and the gate is
 * refused while it is there: the copy makes no change, comes back, decides again, finds the veto and
 * ends the request as denied, told once.
 *
 * The real webhook and worker on the emulators and the sandbox over HTTP; the slow copy is paused
 * at its effect claim by the test, never by sleeping.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { readHeld } from '../../src/state/held.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { askedCopy, newPolicy, pausedAtEffectClaim } from './deciding-copy.js';
import { benchResetEachTest, channelPostsAbout } from './fixture.js';
import { askQuestion, clickAt, repliesAt } from './questions.js';

const bench = benchResetEachTest();

it('a Deny answered "Denied" before a deciding copy reaches its executing gate stops that copy', async () => {
  const id = 'db-asked';
  const value = await askQuestion(bench, 'trg_db1', id);
  const policy = newPolicy(bench);
  // 10:20: the hourly look decides "approve" and is paused before its executing gate.
  bench.clock.now = new Date('2026-11-23T10:20:00Z');
  await bench.send(askedCopy(id, 'trg_db1'));
  const slow = pausedAtEffectClaim(bench);
  const looked = bench.run(bench.worker({ policy, table: slow.table }), await bench.receive());
  await slow.paused;

  // U0ADMIN clicks Deny: nothing is executing it yet, so the Deny is the answer.
  const from = bench.slack.posts.length;
  const path = '/actions/T0001/1/deny';
  const outcome = await clickAt(bench, DENY_ACTION_ID, value, bench.clock.now.getTime(), path);
  expect(outcome).toBe('denied');
  expect(repliesAt(bench, path)).toContain('Automation will not do it');

  // The slow copy goes on: its gate is refused, no change is made, and it comes back.
  slow.go();
  expect((await looked).batchItemFailures).toHaveLength(1);
  expect(bench.approvals('trg_db1')).toBe(0);

  // Back, it decides again: the veto denies it, told once.
  const back = await bench.receive(10, 5);
  expect(back.Records).toHaveLength(1);
  expect((await bench.run(bench.worker({ policy }), back)).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_db1')).toBe(0);
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied' });
  const told = channelPostsAbout(bench, id, from);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('Denied');
  expect(await readHeld(bench.table, id)).toBeUndefined();
});
