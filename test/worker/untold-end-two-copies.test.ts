/**
 * An end stored but never told (the audit record's put failed after the mutation) is told when the
 * record comes back. SQS may deliver two copies of it at once (the visibility timeout passed while
 * one was still at work, or a copy redriven from the DLQ meets the retry): each finds the end untold,
 * and each would tell it. The channel must hear "Done" once. The real worker on the emulators; the
 * second copy runs to its end right before the first writes its audit record (no sleeps).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import {
  approvedAuditFailing,
  benchForFile,
  channelPostsAbout,
  copyTrigger,
  onReceive,
  runBeforeAuditPut,
} from './fixture.js';

const bench = benchForFile();

it('two copies telling an untold approval at once: the channel hears it once, the trail records it once', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'untold-twice-1';
  copyTrigger(bench, 'trg_ut');

  // The first receive approves the phase, and its audit record's put fails.
  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_ut', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const first = bench.worker({ table: approvedAuditFailing(bench, id, Number.POSITIVE_INFINITY) });
  expect((await bench.run(first, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  expect(bench.approvals('trg_ut')).toBe(1);

  // Two copies at once: the second runs to its end while the first is about to write its record.
  const second = () => bench.run(bench.worker(), onReceive(event, 3));
  const worker = bench.worker({ table: runBeforeAuditPut(bench, id, 'approved', second) });
  expect((await bench.run(worker, onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_ut')).toBe(1);

  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
});

/** Trigger `triggerId` (a fresh copy of trg_1) approved by request `id`, whose audit record's put fails `failures` times. */
async function approvedUntold(triggerId: string, id: string, failures: number) {
  copyTrigger(bench, triggerId);
  const worker = bench.worker({ table: approvedAuditFailing(bench, id, failures) });
  await bench.send({ triggerId, phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  expect((await bench.run(worker, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  expect(bench.approvals(triggerId)).toBe(1);
  return { worker, event };
}

/** The channel's posts about `id` since `before`, and the trail's `approved` records. */
async function toldOf(id: string, before: number) {
  const posts = channelPostsAbout(bench, id, before);
  const approved = (await readAudit(bench.table, id)).filter((r) => r.result === 'approved');
  return { posts, approved: approved.length };
}

it('a copy that fails while telling gives the telling back: its retry tells', async () => {
  bench.clock.now = new Date('2026-11-24T10:05:00Z');
  await bench.purge();
  const id = 'untold-twice-2';
  const before = bench.slack.posts.length;
  // The put fails on the first receive and again on the retry that claimed the telling.
  const { worker, event } = await approvedUntold('trg_ut2', id, 2);
  expect((await bench.run(worker, onReceive(event, 2))).batchItemFailures).toHaveLength(1);
  expect((await bench.run(worker, onReceive(event, 3))).batchItemFailures).toEqual([]);
  const told = await toldOf(id, before);
  expect(told.posts, told.posts.join('\n')).toHaveLength(1);
  expect(told.posts[0]).toContain('Done');
  expect(told.approved).toBe(1);
});

it('a copy that crashed holding the telling holds it no longer once its claim ran out: a later copy tells', async () => {
  bench.clock.now = new Date('2026-11-24T10:10:00Z');
  await bench.purge();
  const id = 'untold-twice-3';
  const before = bench.slack.posts.length;
  const { worker, event } = await approvedUntold('trg_ut3', id, 1);
  // A copy claimed the telling and crashed; its claim ran out a second ago.
  await bench.table.client.send(
    new PutItemCommand({
      TableName: bench.table.tableName,
      Item: {
        pk: { S: `audit#${id}` },
        sk: { S: 'notified#end' },
        owner: { S: 'crashed-copy' },
        until: { N: String(bench.clock.now.getTime() - 1_000) },
      },
    }),
  );
  expect((await bench.run(worker, onReceive(event, 2))).batchItemFailures).toEqual([]);
  const told = await toldOf(id, before);
  expect(told.posts, told.posts.join('\n')).toHaveLength(1);
  expect(told.approved).toBe(1);
});
