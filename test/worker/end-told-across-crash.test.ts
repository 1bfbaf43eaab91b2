/**
 * Every end is told at least once, whatever point the worker's process dies at: SQS delivers the
 * message again once its visibility timeout passed, and that copy must tell the requester and the
 * channel what the dead one could not. The audit record of an end is what says it was told (a copy
 * finding it replays the end without the channel), so a process dying after that record and before
 * the posts used to leave the end untold for good. The real worker on the emulators; the death is
 * a table whose calls stop answering right after a given put lands.
 */
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import {
  benchForFile,
  channelPostsAbout,
  copyTrigger,
  dyingAfterPut,
  onReceive,
  VISIBILITY_MS,
} from './fixture.js';

const bench = benchForFile();

/** Sends an approval of `triggerId` as request `id` with a reply URL at `path`, and receives it. */
async function approvalWithReply(triggerId: string, id: string, path: string) {
  copyTrigger(bench, triggerId);
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId: id,
    reply: { slackResponseUrl: bench.slack.url(path), issuedAt: bench.clock.now.toISOString() },
  });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  return event;
}

const postsTo = (path: string, from: number) =>
  bench.slack.posts
    .slice(from)
    .filter((p) => p.path === path)
    .map((p) => JSON.stringify(p.body));

it('an approval whose worker died right after its audit record is told to the requester and the channel, the channel once', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'crash-told-1';
  const before = bench.slack.posts.length;
  const event = await approvalWithReply('trg_ct1', id, '/actions/ct1');
  const dying = dyingAfterPut(bench, (item) => item.requestId?.S === id && item.result?.S === 'approved');
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, 1));
  await dying.died;

  bench.clock.now = new Date(bench.clock.now.getTime() + VISIBILITY_MS);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);

  expect(bench.approvals('trg_ct1')).toBe(1);
  const channel = channelPostsAbout(bench, id, before);
  expect(channel, channel.join('\n')).toHaveLength(1);
  expect(channel[0]).toContain('Done');
  const requester = postsTo('/actions/ct1', before);
  expect(
    requester.some((body) => body.includes(':white_check_mark: Done')),
    requester.join('\n'),
  ).toBe(true);
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
});

it('an approval whose worker died right after its final, before anything was told, is told once by the next copy', async () => {
  bench.clock.now = new Date('2026-11-24T10:10:00Z');
  await bench.purge();
  const id = 'crash-told-2';
  const before = bench.slack.posts.length;
  const event = await approvalWithReply('trg_ct2', id, '/actions/ct2');
  const dying = dyingAfterPut(
    bench,
    (item) =>
      item.pk?.S === `audit#${id}` && item.sk?.S === 'final' && /approved/.test(item.outcome?.S ?? ''),
  );
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, 1));
  await dying.died;
  expect(channelPostsAbout(bench, id, before)).toEqual([]);

  bench.clock.now = new Date(bench.clock.now.getTime() + VISIBILITY_MS);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);

  expect(bench.approvals('trg_ct2')).toBe(1);
  const channel = channelPostsAbout(bench, id, before);
  expect(channel, channel.join('\n')).toHaveLength(1);
  expect(channel[0]).toContain('Done');
  const requester = postsTo('/actions/ct2', before);
  expect(
    requester.some((body) => body.includes(':white_check_mark: Done')),
    requester.join('\n'),
  ).toBe(true);
});

it('a deferral whose worker died right after marking it told is told to the requester and the channel when it comes back', async () => {
  bench.clock.now = new Date('2026-11-24T20:00:00Z'); // a Tuesday, after office hours: deferred
  await bench.purge();
  const id = 'crash-told-3';
  const before = bench.slack.posts.length;
  const event = await approvalWithReply('trg_ct3', id, '/actions/ct3');
  const dying = dyingAfterPut(
    bench,
    (item) => item.pk?.S === `audit#${id}` && (item.sk?.S ?? '').startsWith('notified#deferred#'),
  );
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, 1));
  await dying.died;

  bench.clock.now = new Date(bench.clock.now.getTime() + VISIBILITY_MS);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);

  expect(bench.approvals('trg_ct3')).toBe(0);
  const channel = channelPostsAbout(bench, id, before);
  expect(channel, channel.join('\n')).toHaveLength(1);
  expect(channel[0]).toContain('Deferred');
  const requester = postsTo('/actions/ct3', before);
  expect(requester, requester.join('\n')).toHaveLength(1);
  expect(requester[0]).toContain('Deferred');
});
