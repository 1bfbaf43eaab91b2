/**
 * An end's audit record is the mark that it was told (a copy of the request finding it replays the
 * end without telling the channel). A step that failed after that record was written (ending the
 * question the request answers, reading the channel's URL) used to give the telling back and fail
 * the record: its retry found the record, took the end for told, and the channel never heard it.
 * The real worker on the emulators; the failures are injected on the table client and the
 * channel-URL reader, once each.
 */
import { PutItemCommand, type PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { benchForFile, channelPostsAbout, copyTrigger, onReceive } from './fixture.js';
import { askQuestion, clickApprove } from './questions.js';

const bench = benchForFile();

/**
 * The state table, on which the put of `asked`'s final (ending the question an approval answers)
 * fails once, after the `approved` audit record of `id` is written.
 */
function questionEndFailing(id: string, asked: string): StateTable {
  const real = bench.table.client;
  let audited: Promise<unknown> | undefined;
  let failed = false;
  const client = {
    send: async (command: unknown) => {
      const item =
        command instanceof PutItemCommand ? (command.input as PutItemCommandInput).Item : undefined;
      if (item?.requestId?.S === id && item?.result?.S === 'approved') {
        audited = real.send(command as never);
        return audited;
      }
      if (!failed && item?.pk?.S === `audit#${asked}` && item?.sk?.S === 'final') {
        failed = true;
        await audited; // the approval's audit record is in the table before this fails
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      }
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

it('an approval whose answered question fails to end after its audit record is told to the channel', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z');
  await bench.purge();
  const value = await askQuestion(bench, 'trg_taa1', 'taa-asked-1');
  const copy = await clickApprove(bench, value);
  const before = bench.slack.posts.length;
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);

  const worker = bench.worker({ table: questionEndFailing(copy, 'taa-asked-1') });
  expect((await bench.run(worker, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  // SQS delivers it again: the question is ended then.
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);

  expect(bench.approvals('trg_taa1')).toBe(1);
  const told = channelPostsAbout(bench, copy, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect((await readAudit(bench.table, copy)).filter((r) => r.result === 'approved')).toHaveLength(1);
  expect((await readAudit(bench.table, 'taa-asked-1')).map((r) => r.result)).toContain('approved');
});

it('an approval whose channel URL cannot be read once when telling it is told to the channel, once', async () => {
  bench.clock.now = new Date('2026-11-24T10:05:00Z');
  await bench.purge();
  const id = 'taa-2';
  copyTrigger(bench, 'trg_taa2');
  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_taa2', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  // The channel's webhook URL is a secret: its first read once the phase is approved fails
  // (Secrets Manager throttled).
  let failed = false;
  const channelUrl = async () => {
    if (bench.approvals('trg_taa2') > 0 && !failed) {
      failed = true;
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    }
    return bench.slack.url('/services/channel');
  };
  const worker = bench.worker({ channelUrl });
  expect((await bench.run(worker, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  expect(failed).toBe(true);
  expect((await bench.run(worker, onReceive(event, 2))).batchItemFailures).toEqual([]);

  expect(bench.approvals('trg_taa2')).toBe(1);
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
});
