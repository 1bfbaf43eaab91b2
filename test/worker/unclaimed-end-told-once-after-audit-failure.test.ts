/**
 * An end that is not a request's stored end (no telling claim: the requester's "Asked a human"
 * reply, a copy's replay of an end) is told once even when its audit record's put fails once and
 * the record is retried. Since the posts moved before the audit record, a plain throttled put (no
 * crash) had the retry post the same reply again: the requester read it twice. The real worker on
 * the emulators; the Slack capture counts the posts.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import type { StateTable } from '../../src/state/table.js';
import { benchForFile, copyTrigger, onReceive } from './fixture.js';

const bench = benchForFile();

/** The state table, on which the first put of `requestId`'s `result` audit record is throttled. */
function auditFailingOnce(requestId: string, result: string): StateTable {
  let left = 1;
  const real = bench.table.client;
  const client = {
    send: async (command: unknown) => {
      const item = command instanceof PutItemCommand ? command.input.Item : undefined;
      if (left > 0 && item?.requestId?.S === requestId && item?.result?.S === result) {
        left -= 1;
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      }
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

const postsTo = (path: string, from: number) =>
  bench.slack.posts
    .slice(from)
    .filter((p) => p.path === path)
    .map((p) => JSON.stringify(p.body));

it('an asked request whose audit put failed once tells its requester once, after the retry', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday
  await bench.purge();
  const id = 'asked-audit-fails-1';
  copyTrigger(bench, 'trg_aaf1');
  const before = bench.slack.posts.length;
  await bench.send({
    triggerId: 'trg_aaf1',
    phaseId: 'ph_1',
    requestId: id,
    requestedBy: { source: 'schedule', id: 'nightly' }, // the bench policy asks a human
    reply: { slackResponseUrl: bench.slack.url('/actions/aaf1'), issuedAt: bench.clock.now.toISOString() },
  });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);

  const failing = bench.worker({ table: auditFailingOnce(id, 'asked') });
  expect((await bench.run(failing, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  bench.clock.now = new Date('2026-11-24T10:01:00Z');
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);

  const told = postsTo('/actions/aaf1', before).filter((body) => body.includes('Asked a human'));
  expect(told, told.join('\n')).toHaveLength(1);
});

it("a copy of an ended request whose replay's audit put failed once tells its requester once", async () => {
  bench.clock.now = new Date('2026-11-24T10:10:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'replay-audit-fails-1';
  copyTrigger(bench, 'trg_raf1');
  await bench.send({ triggerId: 'trg_raf1', phaseId: 'ph_1', requestId: id });
  expect((await bench.run(bench.worker(), await bench.receive())).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_raf1')).toBe(1);

  // The producer sends the request again (a retry of its own), with a reply URL.
  const before = bench.slack.posts.length;
  await bench.send({
    triggerId: 'trg_raf1',
    phaseId: 'ph_1',
    requestId: id,
    reply: { slackResponseUrl: bench.slack.url('/actions/raf1'), issuedAt: bench.clock.now.toISOString() },
  });
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);
  const failing = bench.worker({ table: auditFailingOnce(id, 'replayed') });
  expect((await bench.run(failing, onReceive(copy, 1))).batchItemFailures).toHaveLength(1);
  expect((await bench.run(bench.worker(), onReceive(copy, 2))).batchItemFailures).toEqual([]);

  expect(bench.approvals('trg_raf1')).toBe(1);
  const told = postsTo('/actions/raf1', before).filter((body) => body.includes('Already done'));
  expect(told, told.join('\n')).toHaveLength(1);
});
