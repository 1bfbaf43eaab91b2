/**
 * An Approve click's copy is a request of its own (`<asked id>:approved-by:<user>`): its person is
 * the clicker, told "approved, on its way" by the webhook. Its executing gate on the question it
 * answers waits while another pass records the question's end (an ending lease). That wait counted
 * as "another copy of this request handles it" (`otherCopy`), but the lease's holder is the
 * question's own copy, which ends and tells the question, never the click: on the click copy's last
 * receive its give-up told nothing, and the clicker and the CI gate (no `dead-lettered` record)
 * never heard any end. Waiting on the question's hold is now the click copy's own failure, told.
 *
 * U0ADMIN approves the question, over a veto on the same change (another question about it was
 * denied: automated requests for it are denied, a person can still approve it). A copy of the asked
 * request comes and is denied by the veto; right after its ending lease lands on the question, the
 * click copy runs its last receive (a hook in that copy's table, no sleeping). Real webhook and
 * worker on fauxqs and dynalite, the Console API sandbox, the Slack stand-in.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { heldItemKey } from '../../src/state/held.js';
import type { StateTable } from '../../src/state/table.js';
import { askedCopy } from './deciding-copy.js';
import { type Bench, benchResetEachTest, onReceive } from './fixture.js';
import { askQuestion, clickApprove, clickDeny } from './questions.js';

const bench = benchResetEachTest();

/** The bench's table, running `run` (once) right after an ending lease lands on `requestId`'s held item. */
function afterEndingLease(b: Bench, requestId: string, run: () => Promise<void>): StateTable {
  const real = b.table.client;
  const held = heldItemKey(requestId);
  let ran = false;
  const client = {
    send: async (command: unknown) => {
      const out = await real.send(command as never);
      const key = command instanceof UpdateItemCommand ? command.input.Key : undefined;
      if (
        !ran &&
        key?.pk?.S === held.pk?.S &&
        key?.sk?.S === held.sk?.S &&
        (command as UpdateItemCommand).input.UpdateExpression?.includes('endingUntil')
      ) {
        ran = true;
        await run();
      }
      return out;
    },
  } as unknown as StateTable['client'];
  return { client, tableName: b.table.tableName };
}

it("an Approve click's copy on its last receive while the question's own copy is ending it tells the clicker it gave up", async () => {
  const asked = 'gq-asked';
  const value = await askQuestion(bench, 'trg_gq1', asked);
  // Another question about the same change is denied (a veto on it: automation will not do it),
  // and U0ADMIN approves this one (a person overrides the veto: "on its way").
  const other = await askQuestion(bench, 'trg_gq1', 'gq-asked-other');
  await clickDeny(bench, other);
  const copyId = await clickApprove(bench, value);
  const click = await bench.receive();
  expect(click.Records).toHaveLength(1);
  const clickPath = '/actions/T0001/1/click';
  const toldClicker = () =>
    bench.slack.posts.filter((p) => p.path === clickPath).map((p) => JSON.stringify(p.body));
  const before = toldClicker().length;

  // 10:05: a copy of the asked request comes (the schedule sent it again) and is denied by the veto.
  // While its ending lease is on the question, the click copy runs its last receive.
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  await bench.send(askedCopy(asked, 'trg_gq1'));
  const askedAgain = await bench.receive();
  let run: Awaited<ReturnType<typeof bench.run>> | undefined;
  const table = afterEndingLease(bench, asked, async () => {
    run = await bench.run(bench.worker(), onReceive(click, MAX_RECEIVE_COUNT));
  });
  expect((await bench.run(bench.worker({ table }), askedAgain)).batchItemFailures).toEqual([]);

  // The click copy waited on the question's end, which is not its own; nothing was changed.
  expect(run?.batchItemFailures).toHaveLength(1);
  expect(JSON.stringify(bench.logs)).toContain('is being ended by another pass');
  expect(bench.approvals('trg_gq1')).toBe(0);
  expect(await readFinal(bench.table, asked)).toMatchObject({ result: 'denied', rule: 'veto' });

  // The click's message goes to the DLQ: the clicker hears that it gave up, and the CI gate reads it.
  const told = toldClicker().slice(before);
  expect(told.filter((body) => /after 5 attempts/.test(body))).toHaveLength(1);
  expect(told.join('')).toContain(`question ${asked} is being ended by another pass`);
  expect((await readAudit(bench.table, copyId)).map((r) => r.result)).toEqual(['dead-lettered']);
});
