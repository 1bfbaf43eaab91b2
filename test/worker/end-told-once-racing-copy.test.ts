/**
 * Review s28: telling an untold end is claimed (src/state/telling.ts claimTelling, 5f3a031), but the
 * copy that wrote the final in the first place tells without the claim. Since f4b963a the worker
 * writes the final first and its audit record after it: a second copy of the message (an SQS
 * redelivery, a producer's retry, a DLQ redrive) that reads the request in between finds the
 * final without its record, takes it for untold, claims, audits and tells; then the first copy
 * audits and tells too. The channel hears "Done" twice and the trail keeps two 'approved' records.
 * The real worker on the emulators; the second copy runs right before the first's audit put.
 */
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile, channelPostsAbout, copyTrigger, onReceive, runBeforeAuditPut } from './fixture.js';

const bench = benchForFile();

it('a copy reading the request between the first copy’s final and its audit record: told once, recorded once', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'review-s28-told-twice';
  copyTrigger(bench, 'trg_r28');
  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_r28', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);

  // The first receive approves the phase; a second copy of the message runs to its end while the
  // first has written the final and is about to write its audit record.
  const second = () => bench.run(bench.worker(), onReceive(event, 2));
  const first = bench.worker({ table: runBeforeAuditPut(bench, id, 'approved', second) });
  expect((await bench.run(first, onReceive(event, 1))).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_r28')).toBe(1);

  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
});
