/**
 * The writer of a request's final claims its telling in the same put (src/state/audit.ts
 * recordFinal with a telling claim): no round trip of its own on the common path. A copy finding
 * the end untold while that claim holds stays silent (the writer tells it, or gives the claim back
 * first and its retry tells); once the claim ran out (the writer crashed) a copy tells it, once.
 * The real worker on the emulators.
 */
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile, channelPostsAbout, copyTrigger, dyingAfterPut, onReceive } from './fixture.js';

const bench = benchForFile();

it('a copy finding the end untold while its writer holds the telling stays silent; once the claim ran out, a copy tells it once', async () => {
  bench.clock.now = new Date('2026-11-24T11:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'final-claim-1';
  copyTrigger(bench, 'trg_fc');
  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_fc', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  // Approved, and its writer's process died right after its final, which claimed the telling
  // until the invocation's end (20 s) plus the lock margin (15 s): the end is stored and untold.
  const dying = dyingAfterPut(
    bench,
    (item) =>
      item.pk?.S === `audit#${id}` && item.sk?.S === 'final' && /approved/.test(item.outcome?.S ?? ''),
  );
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, 1));
  await dying.died;
  expect(bench.approvals('trg_fc')).toBe(1);

  // A copy while the claim holds is silent, and keeps its message until the claim runs out (its
  // writer may die before telling: duplicate-meets-dying-teller.test.ts).
  bench.clock.now = new Date(bench.clock.now.getTime() + 20_000);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([
    { itemIdentifier: event.Records[0]?.messageId },
  ]);
  expect(channelPostsAbout(bench, id, before)).toEqual([]);
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(0);

  // The claim ran out: the next copy tells the end, once, as at first.
  bench.clock.now = new Date(bench.clock.now.getTime() + 41_000);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 4))).batchItemFailures).toEqual([]);
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
  expect(bench.approvals('trg_fc')).toBe(1);
});
