/**
 * The executing gate refused by a mark that is taken off before the copy reads the held item back:
 * a pass's ending lease, run out (its writer died before any end), is on the held item of a
 * deferral the tick released; the worker's executing mark is refused by it, and another copy
 * clears that lease (`clearStaleEnding`) between the refused write and the read-back. The copy
 * must not take the item it still finds, unmarked, for a request that ended: it went on to call the
 * API with no executing mark on the item, so a `/autopilot cancel` landing then was marked and told
 * ":wastebasket: … is *cancelled*: it will not be done" while the phase was approved.
 *
 * The real worker and webhook on the emulators and the sandbox; the interleaving is played by the
 * table the worker sees (the lease cleared right after its refused write, the cancel right after
 * its read-back), never by sleeping.
 */
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { listHeld, readHeld } from '../../src/state/held.js';
import { clearStaleEnding, startEndingHeld } from '../../src/state/held-gates.js';
import { heldItemKey } from '../../src/state/held-marks.js';
import type { StateTable } from '../../src/state/table.js';
import { releaseHeld } from '../../src/worker/release.js';
import { type Bench, benchForFile, copyTrigger } from './fixture.js';
import { chatCommand, releaseDeps } from './questions.js';

const bench = benchForFile();

/**
 * The bench's table as the worker sees it: right after its executing mark on `requestId` is refused,
 * `refused` runs (once); right after its next read of that held item returns, `readBack` runs (once).
 */
function playedBetween(
  b: Bench,
  requestId: string,
  refused: () => Promise<void>,
  readBack: () => Promise<void>,
) {
  const real = b.table.client;
  const held = heldItemKey(requestId);
  let stage: 'write' | 'read' | 'done' = 'write';
  const client = {
    send: async (command: unknown) => {
      const isHeld = (key?: Record<string, { S?: string }>) =>
        key?.pk?.S === held.pk?.S && key?.sk?.S === held.sk?.S;
      if (
        stage === 'write' &&
        command instanceof UpdateItemCommand &&
        isHeld(command.input.Key as never) &&
        command.input.UpdateExpression?.includes('executingBy')
      ) {
        try {
          return await real.send(command);
        } catch (err) {
          if ((err as Error).name === 'ConditionalCheckFailedException') {
            stage = 'read';
            await refused();
          }
          throw err;
        }
      }
      const out = await real.send(command as never);
      if (stage === 'read' && command instanceof GetItemCommand && isHeld(command.input.Key as never)) {
        stage = 'done';
        await readBack();
      }
      return out;
    },
  } as unknown as StateTable['client'];
  return { client, tableName: b.table.tableName };
}

it('a lease cleared between the refused executing mark and its read-back: a cancel landing then is never told beside a change made', async () => {
  const id = 'gate-lease-cleared';
  copyTrigger(bench, 'trg_glc');
  // Saturday: outside the CI rule's office hours, so the request is deferred to Monday 09:00.
  bench.clock.now = new Date('2026-11-28T10:00:00Z');
  await bench.purge();
  await bench.send({ triggerId: 'trg_glc', phaseId: 'ph_1', requestId: id });
  await bench.run(bench.worker(), await bench.receive());
  expect((await readHeld(bench.table, id))?.why).toBe('window');

  // Monday 09:00:30: the tick sends it back. A pass set an ending lease (to 09:00:10) and died before any end.
  bench.clock.now = new Date('2026-11-30T09:00:30Z');
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  const leaseUntil = Date.parse('2026-11-30T09:00:10Z');
  const noMark = { effect: 'unread', nowMs: Date.parse('2026-11-30T09:00:00Z') };
  expect((await startEndingHeld(bench.table, id, leaseUntil, noMark)).state).toBe('go');

  let reply = '';
  const table = playedBetween(
    bench,
    id,
    // Another copy of the request finds the run-out lease and clears it.
    () => clearStaleEnding(bench.table, id, leaseUntil, bench.clock.now.getTime()),
    async () => {
      reply = await chatCommand(bench, `cancel ${id} release called off`);
    },
  );
  await bench.run(bench.worker({ table }), await bench.receive());

  // The copy tries its mark again, finds the cancel that landed first, and ends the request cancelled:
  // what the person was told is what happened.
  expect(reply).toContain('is *cancelled*');
  expect(bench.approvals('trg_glc')).toBe(0);
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled' });
  const ends = (await readAudit(bench.table, id))
    .map((r) => r.result)
    .filter((result) => ['denied', 'cancelled', 'approved'].includes(result));
  expect(ends).toEqual(['cancelled']);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
});
