/**
 * A question is asked at least once, whatever point the worker's process dies at: SQS delivers
 * the message again once its visibility timeout passed, and that copy must post the Approve/Deny
 * question the dead one could not. The question's mark used to be written before its post, so a
 * death in between left it marked and never posted: nobody was asked, and the request was denied
 * at its expiry. The real worker on the emulators; the death is a table whose calls stop
 * answering right after the question's mark lands.
 */
import { expect, it } from 'vitest';
import { benchForFile, dyingAfterPut, onReceive, VISIBILITY_MS } from './fixture.js';
import { questionsAbout, sendAskingRequest } from './questions.js';

const bench = benchForFile();

it('a question whose worker died right after marking it asked is posted once by the redelivered copy', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z');
  await bench.purge();
  const id = 'ask-crash-1';
  const before = bench.slack.posts.length;
  await sendAskingRequest(bench, 'trg_ac1', id);
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const dying = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'notified#ask');
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, 1));
  await dying.died;
  expect(questionsAbout(bench, id, before)).toEqual([]);

  bench.clock.now = new Date(bench.clock.now.getTime() + VISIBILITY_MS);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);

  const asked = questionsAbout(bench, id, before);
  expect(asked, asked.join('\n')).toHaveLength(1);
  expect(bench.approvals('trg_ac1')).toBe(0);
});

it('a question asked without a crash is posted once, however many copies look at it', async () => {
  bench.clock.now = new Date('2026-11-24T11:00:00Z');
  await bench.purge();
  const id = 'ask-crash-2';
  const before = bench.slack.posts.length;
  await sendAskingRequest(bench, 'trg_ac2', id);
  const event = await bench.receive();
  for (const count of [1, 2, 3])
    expect((await bench.run(bench.worker(), onReceive(event, count))).batchItemFailures).toEqual([]);

  expect(questionsAbout(bench, id, before)).toHaveLength(1);
});
