/**
 * The writer of a request's final claims its telling in the same put (src/state/audit.ts
 * recordFinal with a telling claim): no round trip of its own on the common path. A copy finding
 * the end untold while that claim holds stays silent (the writer tells it, or gives the claim back
 * first and its retry tells); once the claim ran out (the writer crashed) a copy tells it, once.
 * The real worker on the emulators.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { approvedAuditFailing, benchForFile, channelPostsAbout, copyTrigger, onReceive } from './fixture.js';

const bench = benchForFile();

/** The request's final as a writer that crashed after it left it: with its telling claimed until `untilMs`. */
async function crashedWriterClaim(id: string, untilMs: number) {
  const key = { pk: { S: `audit#${id}` }, sk: { S: 'final' } };
  const { Item } = await bench.table.client.send(
    new GetItemCommand({ TableName: bench.table.tableName, Key: key, ConsistentRead: true }),
  );
  expect(Item?.outcome?.S).toContain('approved');
  expect(Item?.tellOwner, 'the claim was given back when the audit record failed').toBeUndefined();
  await bench.table.client.send(
    new PutItemCommand({
      TableName: bench.table.tableName,
      Item: { ...Item, tellOwner: { S: 'crashed-writer' }, tellUntil: { N: String(untilMs) } },
    }),
  );
}

it('a copy finding the end untold while its writer holds the telling stays silent; once the claim ran out, a copy tells it once', async () => {
  bench.clock.now = new Date('2026-11-24T11:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'final-claim-1';
  copyTrigger(bench, 'trg_fc');
  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_fc', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  // Approved, its audit record's put failed: the end is stored and untold.
  const first = bench.worker({ table: approvedAuditFailing(bench, id, 1) });
  expect((await bench.run(first, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  expect(bench.approvals('trg_fc')).toBe(1);

  // Its writer (say) crashed after its final, its claim holding another minute: a copy is silent.
  await crashedWriterClaim(id, bench.clock.now.getTime() + 60_000);
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect(channelPostsAbout(bench, id, before)).toEqual([]);
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(0);

  // The claim ran out: the next copy tells the end, once, as at first.
  bench.clock.now = new Date(bench.clock.now.getTime() + 61_000);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 4))).batchItemFailures).toEqual([]);
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
  expect(bench.approvals('trg_fc')).toBe(1);
});
