/**
 * `/autopilot cancel` landing after the worker read a held request (and found no cancel mark) but
 * before it recorded its own end. The person is told ":wastebasket: … is *cancelled*: it will not
 * be done"; the request must then end as cancelled, never as the end the worker was about to
 * record (a denial by `maxDeferHours`, an approval whose change would be made). Either the cancel
 * or the worker's end is the request's, and everyone hears that one.
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
import { askQuestion, chatCommand, releaseDeps } from './questions.js';

const bench = benchForFile();

const ends = async (requestId: string) =>
  (await readAudit(bench.table, requestId))
    .map((r) => r.result)
    .filter((result) => ['denied', 'cancelled', 'approved'].includes(result));

it('a cancel after the worker read an expired question: the request ends cancelled, not denied', async () => {
  const id = 'cancel-after-read-deny';
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  await askQuestion(bench, 'trg_car1', id);
  // 73 hours later, past maxDeferHours (72): the tick sends the question back and the worker would deny it.
  bench.clock.now = new Date('2026-11-26T11:00:30Z');
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  const before = bench.slack.posts.length;
  let reply = '';
  const table = runAfterStateRead(bench, id, async () => {
    reply = await chatCommand(bench, `cancel ${id} release called off`);
  });
  await bench.run(bench.worker({ table }), await bench.receive());

  expect(reply).toContain('is *cancelled*');
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled', rule: 'cancel' });
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Cancelled');
  expect(told[0]).not.toContain('Denied');
  expect(await ends(id)).toEqual(['cancelled']);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
});

it('a cancel after the worker read a deferral whose window opened: the phase is not approved', async () => {
  const id = 'cancel-after-read-approve';
  copyTrigger(bench, 'trg_car2');
  // Saturday: outside the CI rule's office hours, so the request is deferred to Monday 09:00.
  bench.clock.now = new Date('2026-11-28T10:00:00Z');
  await bench.purge();
  await bench.send({ triggerId: 'trg_car2', phaseId: 'ph_1', requestId: id });
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).find((h) => h.requestId === id)?.why).toBe('window');
  // Monday 09:00:30: the tick sends it back and the worker would approve it.
  bench.clock.now = new Date('2026-11-30T09:00:30Z');
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  const before = bench.slack.posts.length;
  let reply = '';
  const table = runAfterStateRead(bench, id, async () => {
    reply = await chatCommand(bench, `cancel ${id}`);
  });
  await bench.run(bench.worker({ table }), await bench.receive());

  expect(reply).toContain('is *cancelled*');
  expect(bench.approvals('trg_car2')).toBe(0);
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled' });
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Cancelled');
  expect(await ends(id)).toEqual(['cancelled']);
});
