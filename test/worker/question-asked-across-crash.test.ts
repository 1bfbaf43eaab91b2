/**
 * A question is asked at least once, whatever point the worker's process dies at: SQS delivers
 * the message again once its visibility timeout passed, and that copy must post the Approve/Deny
 * question the dead one could not. The question's mark used to be written before its post, so a
 * death in between left it marked and never posted: nobody was asked, and the request was denied
 * at its expiry. The real worker on the emulators; the death is a table whose calls stop
 * answering right after the question's mark lands.
 */
import { expect, it } from 'vitest';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { benchForFile, channelPostsAbout, copyTrigger, dyingAfterPut, onReceive } from './fixture.js';

const bench = benchForFile();

/** The actions queue's visibility timeout: six times the worker's 60 s timeout (infra/autopilot-stack.ts). */
const VISIBILITY_MS = 6 * 60_000;

const questionsAbout = (id: string, from: number) =>
  channelPostsAbout(bench, id, from).filter((body) => body.includes(APPROVE_ACTION_ID));

it('a question whose worker died right after marking it asked is posted once by the redelivered copy', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z');
  await bench.purge();
  const id = 'ask-crash-1';
  const before = bench.slack.posts.length;
  copyTrigger(bench, 'trg_ac1');
  await bench.send({
    triggerId: 'trg_ac1',
    phaseId: 'ph_1',
    requestId: id,
    requestedBy: { source: 'schedule', id: 'nightly' },
  });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const dying = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'notified#ask');
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, 1));
  await dying.died;
  expect(questionsAbout(id, before)).toEqual([]);

  bench.clock.now = new Date(bench.clock.now.getTime() + VISIBILITY_MS);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);

  const asked = questionsAbout(id, before);
  expect(asked, asked.join('\n')).toHaveLength(1);
  expect(bench.approvals('trg_ac1')).toBe(0);
});

it('a question asked without a crash is posted once, however many copies look at it', async () => {
  bench.clock.now = new Date('2026-11-24T11:00:00Z');
  await bench.purge();
  const id = 'ask-crash-2';
  const before = bench.slack.posts.length;
  copyTrigger(bench, 'trg_ac2');
  await bench.send({
    triggerId: 'trg_ac2',
    phaseId: 'ph_1',
    requestId: id,
    requestedBy: { source: 'schedule', id: 'nightly' },
  });
  const event = await bench.receive();
  for (const count of [1, 2, 3])
    expect((await bench.run(bench.worker(), onReceive(event, count))).batchItemFailures).toEqual([]);

  expect(questionsAbout(id, before)).toHaveLength(1);
});
