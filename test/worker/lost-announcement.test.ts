/**
 * A mutation made, then the write of its audit record fails (DynamoDB throttled past the SDK's own
 * retries, or the invocation ends between the final and the audit record): the record is retried,
 * and the retry finds the request's final and *replays* it, which is told to the requester only and
 * audited as `replayed`. So the notifications channel never hears that the phase was approved, and
 * the trail has no `approved` record at all (only a replay of it), for a production change that
 * was made. The real worker on the emulators; one audit put fails.
 */
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { approvedAuditFailing, benchForFile, channelPostsAbout, copyTrigger, onReceive } from './fixture.js';

const bench = benchForFile();

it('an approval whose audit write failed once is still announced in the channel and recorded as approved', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'la-1';
  copyTrigger(bench, 'trg_la');
  // The first put of its `approved` audit record is throttled.
  const worker = bench.worker({ table: approvedAuditFailing(bench, id, 1) });

  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_la', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  expect((await bench.run(worker, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  expect(bench.approvals('trg_la')).toBe(1); // the phase was approved
  // SQS delivers the record again.
  expect((await bench.run(worker, onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_la')).toBe(1);

  const told = channelPostsAbout(bench, id, before);
  expect(told.some((body) => body.includes('Done'))).toBe(true);
  expect((await readAudit(bench.table, id)).map((r) => r.result)).toContain('approved');
});
