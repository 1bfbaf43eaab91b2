/**
 * Review s28: telling an untold end is claimed (src/state/telling.ts claimTelling, 5f3a031), but the
 * copy that wrote the final in the first place tells without the claim. Since f4b963a the worker
 * writes the final first and its audit record after it: a second copy of the message (an SQS
 * redelivery, a producer's retry, a DLQ redrive) that reads the request in between finds the
 * final without its record, takes it for untold, claims, audits and tells; then the first copy
 * audits and tells too. The channel hears "Done" twice and the trail keeps two 'approved' records.
 * The real worker on the emulators; the second copy runs right before the first's audit put.
 */
import { PutItemCommand, type PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

const onReceive = (event: SQSEvent, count: number): SQSEvent => ({
  Records: event.Records.map((r) => ({
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(count) },
  })),
});

/** The state table, with `before` run (once) right before the `approved` audit record of `id` is put. */
function beforeAuditPut(id: string, before: () => Promise<unknown>): StateTable {
  const real = bench.table.client;
  let ran = false;
  const client = {
    send: async (command: unknown) => {
      if (command instanceof PutItemCommand) {
        const item = (command.input as PutItemCommandInput).Item;
        if (!ran && item?.requestId?.S === id && item?.result?.S === 'approved') {
          ran = true;
          await before();
        }
      }
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

it('a copy reading the request between the first copy’s final and its audit record: told once, recorded once', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'review-s28-told-twice';
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set('trg_r28', {
    ...structuredClone(template!),
    id: 'trg_r28',
    actions: [],
  });
  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_r28', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);

  // The first receive approves the phase; a second copy of the message runs to its end while the
  // first has written the final and is about to write its audit record.
  const second = () => bench.run(bench.worker(), onReceive(event, 2));
  const first = bench.worker({ table: beforeAuditPut(id, second) });
  expect((await bench.run(first, onReceive(event, 1))).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_r28')).toBe(1);

  const told = bench.slack.posts
    .slice(before)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body))
    .filter((body) => body.includes(id));
  expect(told, told.join('\n')).toHaveLength(1);
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
});
