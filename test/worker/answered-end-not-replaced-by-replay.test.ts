/**
 * A request's own end is told, not replaced by a replay of another request's change. The worker
 * asks about a schedule's request; a new policy approves schedules, and its hourly look (a copy of
 * the asked request) decides "approve" at 10:20 and is slow to go on. At 10:25 a CI request
 * approves the same phase. At 10:35 U0ADMIN clicks Approve; the approved copy finds the change
 * made, and the pass ending the question writes the question's end ("answered by slack:U0ADMIN …")
 * and dies before telling it. The slow copy went on: its effect claim found the phase approved by
 * the CI request, it told "Already done … by request ci-other" (the requester only), recorded that
 * replay (which counts as the end told) and removed the held record: the person's answer was never
 * told, and nothing was left to tell it. Now that copy finds the request's own final and tells it.
 *
 * The real webhook and worker on the emulators; the death is a table whose calls stop answering
 * right after the final lands; the slow copy is paused at its effect claim, never by sleeping.
 */
import { expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { readHeld } from '../../src/state/held.js';
import { askedCopy, newPolicy, pausedAtEffectClaim } from './deciding-copy.js';
import { benchResetEachTest, channelPostsAbout, dyingAfterPut } from './fixture.js';
import { askQuestion, clickApprove } from './questions.js';

const bench = benchResetEachTest();

it("tells the person's answer, not another request's change, when the answer's pass died before telling it", async () => {
  const id = 'rp-asked';
  const value = await askQuestion(bench, 'trg_rp1', id);
  const policy = newPolicy(bench);

  // 10:20, the hourly look under the new policy: approve (no freeze yet); it is slow to go on.
  bench.clock.now = new Date('2026-11-23T10:20:00Z');
  await bench.send(askedCopy(id, 'trg_rp1'));
  const slow = pausedAtEffectClaim(bench);
  const looked = bench.run(bench.worker({ policy, table: slow.table }), await bench.receive());
  await slow.paused;

  // 10:25: a CI request approves the same phase.
  bench.clock.now = new Date('2026-11-23T10:25:00Z');
  await bench.send({ triggerId: 'trg_rp1', phaseId: 'ph_1', requestId: 'ci-other' });
  await bench.run(bench.worker({ policy }), await bench.receive());
  expect(bench.approvals('trg_rp1')).toBe(1);

  // 10:35: U0ADMIN approves; the approved copy finds the change made, and the pass ending the
  // question dies right after the question's final.
  bench.clock.now = new Date('2026-11-23T10:35:00Z');
  await clickApprove(bench, value);
  const answering = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'final');
  void bench.run(bench.worker({ policy, table: answering.table }), await bench.receive());
  await answering.died;
  const answer = await readFinal(bench.table, id);
  expect(answer).toMatchObject({ answeredBy: 'slack:U0ADMIN' });

  // 11:10, past that pass's lease and claim: the slow copy goes on and finds the change made.
  bench.clock.now = new Date('2026-11-23T11:10:00Z');
  const from = bench.slack.posts.length;
  slow.go();
  await looked;

  expect(bench.approvals('trg_rp1')).toBe(1);
  expect(await readFinal(bench.table, id)).toEqual(answer);
  // The person's answer is the end, told once (the channel hears it), recorded as the answer.
  const records = await readAudit(bench.table, id);
  expect(records.map((r) => r.result)).toEqual(['asked', answer?.result]);
  expect(records[1]).toMatchObject({ answeredBy: 'slack:U0ADMIN', reason: answer?.reason });
  const told = channelPostsAbout(bench, id, from);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('answered by slack:U0ADMIN');
  expect(await readHeld(bench.table, id)).toBeUndefined();
});
