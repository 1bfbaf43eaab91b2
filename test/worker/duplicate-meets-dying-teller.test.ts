/**
 * SQS delivers a message at least once: a duplicate delivery of a message can run beside the copy
 * that holds it. When that copy writes the request's final (claiming its telling in the same put)
 * and its process dies before telling it, the duplicate finds the claim held. It used to return
 * `replayed` ("another copy is telling the end now") and its message was deleted: the dead copy's
 * delivery was the same message, so nothing came back to tell the end, and the requester and the
 * channel never heard it. A copy finding the telling held must leave its message on the queue until
 * the claim runs out, then tell the end if nobody did. The real worker on the emulators.
 */
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile, channelPostsAbout, copyTrigger, dyingAfterPut, onReceive } from './fixture.js';

const bench = benchForFile();

it('a duplicate delivery meeting the telling claim of a copy that then dies keeps its message, and the end is told once', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'dup-dying-teller-1';
  copyTrigger(bench, 'trg_ddt');
  const before = bench.slack.posts.length;
  await bench.send({
    triggerId: 'trg_ddt',
    phaseId: 'ph_1',
    requestId: id,
    reply: { slackResponseUrl: bench.slack.url('/actions/ddt'), issuedAt: bench.clock.now.toISOString() },
  });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const messageId = event.Records[0]?.messageId as string;

  // The first delivery approves and writes the final, claiming its telling, and dies right there.
  const dying = dyingAfterPut(
    bench,
    (item) =>
      item.pk?.S === `audit#${id}` && item.sk?.S === 'final' && /approved/.test(item.outcome?.S ?? ''),
  );
  void bench.run(bench.worker({ table: dying.table }), onReceive(event, 1));
  await dying.died;

  // A duplicate delivery of the same message, a second later: the claim holds. Its message must not
  // be deleted (it is the dead copy's message too): it is left for later, not answered `replayed`.
  bench.clock.now = new Date(bench.clock.now.getTime() + 1_000);
  const duplicate = await bench.run(bench.worker(), onReceive(event, 1));
  expect(duplicate.batchItemFailures).toEqual([{ itemIdentifier: messageId }]);
  expect(channelPostsAbout(bench, id, before)).toEqual([]);

  // It comes back once the claim ran out (the dead copy's invocation, 20 s, plus the lock margin):
  // that copy tells the end, once; a later copy is silent.
  bench.clock.now = new Date(bench.clock.now.getTime() + 40_000);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);

  expect(bench.approvals('trg_ddt')).toBe(1);
  const channel = channelPostsAbout(bench, id, before);
  expect(channel, channel.join('\n')).toHaveLength(1);
  expect(channel[0]).toContain('Done');
  const requester = bench.slack.posts.slice(before).filter((p) => p.path === '/actions/ddt');
  expect(requester.length, JSON.stringify(requester)).toBeGreaterThanOrEqual(1);
  expect(JSON.stringify(requester[0]?.body)).toContain(':white_check_mark: Done');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
});
