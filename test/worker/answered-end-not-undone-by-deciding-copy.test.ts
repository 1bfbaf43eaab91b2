/**
 * A person's answer is the end of an asked request, and no copy that decided before it makes the
 * change afterwards. The worker asks about a schedule's request; a new policy approves schedules,
 * and its hourly look (a copy of the asked request) decides "approve" at 10:20 and is slow to go
 * on. At 10:35 U0ADMIN clicks Approve; a freeze has started, so the approved copy is denied, and
 * the pass ending the question writes its end ("answered by slack:U0ADMIN …", denied) and dies
 * before removing the held record. Its ending lease (`endingUntil`) runs out at 10:50. The slow
 * copy went on past its executing gate, approved the phase and told "Approved" beside the stored
 * denial. Now the gate is refused while an ending lease is on the held item (run out or not): the
 * copy tells the stored end instead; a lease left by a pass that died before any final is cleared.
 *
 * The real webhook and worker on the emulators; the deaths are tables whose calls stop answering
 * right after a chosen write lands; the slow copy is paused at its effect claim, never by sleeping.
 */
import { expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { readHeld } from '../../src/state/held.js';
import { startEndingHeld } from '../../src/state/held-gates.js';
import { askedCopy, newPolicy, pausedAtEffectClaim } from './deciding-copy.js';
import { benchResetEachTest, channelPostsAbout, dyingAfterPut } from './fixture.js';
import { askQuestion, clickApprove } from './questions.js';

const bench = benchResetEachTest();

/** No copy has marked the held item executing yet: its effect claim is never read. */
const noMark = { effect: 'unread', nowMs: 0 };

/** The asked request `id` on `triggerId`, and its hourly look deciding "approve" at 10:20, paused at its effect claim. */
async function slowApprovingCopy(id: string, triggerId: string) {
  const value = await askQuestion(bench, triggerId, id);
  const policy = newPolicy(bench);
  bench.clock.now = new Date('2026-11-23T10:20:00Z');
  await bench.send(askedCopy(id, triggerId));
  const slow = pausedAtEffectClaim(bench);
  const looked = bench.run(bench.worker({ policy, table: slow.table }), await bench.receive());
  await slow.paused;
  return { value, policy, go: slow.go, looked };
}

/** At 10:35 U0ADMIN approves; the approved copy is denied by the freeze, and the pass ending the question dies right after its final. */
async function answeredAndDied(id: string, value: string, policy: ReturnType<typeof newPolicy>) {
  bench.clock.now = new Date('2026-11-23T10:35:00Z');
  await clickApprove(bench, value);
  const answering = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'final');
  void bench.run(bench.worker({ policy, table: answering.table }), await bench.receive());
  await answering.died;
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied' });
  expect(await readHeld(bench.table, id)).toBeDefined();
}

it('a copy that decided before the answer never makes the change once the answer is stored, and tells the answer', async () => {
  const id = 'ex-asked';
  const { value, policy, go, looked } = await slowApprovingCopy(id, 'trg_ex1');
  await answeredAndDied(id, value, policy);

  // 11:10, past the answering pass's lease and claim: the slow copy goes on.
  bench.clock.now = new Date('2026-11-23T11:10:00Z');
  const from = bench.slack.posts.length;
  go();
  await looked;

  expect(bench.approvals('trg_ex1')).toBe(0);
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied' });
  // The person's answer is the end, told once (the channel hears it), and the request is no longer held.
  const records = await readAudit(bench.table, id);
  expect(records.map((r) => r.result)).toEqual(['asked', 'denied']);
  expect(records[1]?.answeredBy).toBe('slack:U0ADMIN');
  const told = channelPostsAbout(bench, id, from);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('answered by slack:U0ADMIN');
  expect(await readHeld(bench.table, id)).toBeUndefined();
  expect(bench.logs.filter((l) => l.requestId === id && l.result === 'approved')).toEqual([]);
});

it('while the answering pass still holds its lease, the copy makes no change and leaves the telling to it', async () => {
  const id = 'ex-asked-live';
  const { value, policy, go, looked } = await slowApprovingCopy(id, 'trg_ex2');
  await answeredAndDied(id, value, policy);

  // 10:40: the answering pass's lease (to 10:50) still holds.
  bench.clock.now = new Date('2026-11-23T10:40:00Z');
  go();
  await looked;

  expect(bench.approvals('trg_ex2')).toBe(0);
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied' });
});

it('a lease left by a pass that died before writing any end is cleared, and the change is made once', async () => {
  const id = 'ex-stale-lease';
  const { go, looked } = await slowApprovingCopy(id, 'trg_ex3');
  // 10:25: a pass set its ending lease (to 10:40) and died before its final.
  expect((await startEndingHeld(bench.table, id, Date.parse('2026-11-23T10:40:00Z'), noMark)).state).toBe(
    'go',
  );

  bench.clock.now = new Date('2026-11-23T11:10:00Z');
  go();
  const out = await looked;

  expect(out.batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_ex3')).toBe(1);
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'approved' });
  expect(await readHeld(bench.table, id)).toBeUndefined();
});

it('a live lease with no end written yet makes the copy retry later, with no change made', async () => {
  const id = 'ex-live-lease';
  const { go, looked } = await slowApprovingCopy(id, 'trg_ex4');
  // A pass is recording the request's end right now (its lease runs to 11:30).
  expect((await startEndingHeld(bench.table, id, Date.parse('2026-11-23T11:30:00Z'), noMark)).state).toBe(
    'go',
  );

  bench.clock.now = new Date('2026-11-23T11:10:00Z');
  go();
  const out = await looked;

  expect(out.batchItemFailures).toHaveLength(1);
  expect(bench.approvals('trg_ex4')).toBe(0);
  expect(await readFinal(bench.table, id)).toBeUndefined();
  expect(await readHeld(bench.table, id)).toBeDefined();
});
