/**
 * `/autopilot cancel` of a held request whose change another request made meanwhile. The person
 * is told ":wastebasket: … is *cancelled*: it will not be done"; the request must then end as
 * cancelled, never be told "Done … by request X" to the requester and the channel. The worker's
 * end of such a request ("already done by another") takes the same gate on the held item as every
 * other end of a held request: a cancel marked first wins, wherever it lands (before the worker's
 * read, or between that read and the worker's end).
 *
 * The real worker and webhook on the emulators and the sandbox; the cancel is a signed slash
 * command through the webhook's handler, run right after the worker's state read returns (the
 * state table the worker sees runs it), never by sleeping.
 */
import { expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile, channelPostsAbout, copyTrigger, runAfterStateRead } from './fixture.js';
import { chatCommand, releaseDeps } from './questions.js';

const bench = benchForFile();

/**
 * `id` deferred on Saturday (outside office hours) on `triggerId`; on Monday at 09:00:30 another
 * request (`id`-other) approves the same phase, and the tick sends `id` back.
 */
async function heldThenDoneByAnother(triggerId: string, id: string): Promise<void> {
  copyTrigger(bench, triggerId);
  bench.clock.now = new Date('2026-11-28T10:00:00Z');
  await bench.purge();
  await bench.send({ triggerId, phaseId: 'ph_1', requestId: id });
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).find((h) => h.requestId === id)?.why).toBe('window');
  bench.clock.now = new Date('2026-11-30T09:00:30Z');
  await bench.send({ triggerId, phaseId: 'ph_1', requestId: `${id}-other` });
  await bench.run(bench.worker(), await bench.receive());
  expect(bench.approvals(triggerId)).toBe(1);
  await releaseHeld(releaseDeps(bench), bench.clock.now);
}

async function expectEndedCancelled(id: string, reply: string, before: number) {
  expect(reply).toContain('is *cancelled*');
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled', rule: 'cancel' });
  const told = channelPostsAbout(bench, id, before).filter((body) => !body.includes(`${id}-other`));
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Cancelled');
  expect(told[0]).not.toContain('Done');
  const ends = (await readAudit(bench.table, id)).map((r) => r.result);
  expect(ends.filter((r) => ['approved', 'replayed', 'cancelled'].includes(r))).toEqual(['cancelled']);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
}

it('a cancel after the worker read a held request another request already did: it ends cancelled, not told done', async () => {
  const id = 'cancel-already-done-1';
  await heldThenDoneByAnother('trg_cad1', id);
  const before = bench.slack.posts.length;
  let reply = '';
  const table = runAfterStateRead(bench, id, async () => {
    reply = await chatCommand(bench, `cancel ${id} release called off`);
  });
  await bench.run(bench.worker({ table }), await bench.receive());

  await expectEndedCancelled(id, reply, before);
  expect(bench.approvals('trg_cad1')).toBe(1);
});

it('a cancel before the worker comes back to a held request another request already did: it ends cancelled', async () => {
  const id = 'cancel-already-done-2';
  await heldThenDoneByAnother('trg_cad2', id);
  const before = bench.slack.posts.length;
  const reply = await chatCommand(bench, `cancel ${id} release called off`);
  await bench.run(bench.worker(), await bench.receive());

  await expectEndedCancelled(id, reply, before);
});
