/**
 * A request's audit history is read whole. It was read oldest first and cut at 20 pages, so past
 * 20 MB in one request's partition the newest steps (its end) were silently left out: `why` and
 * `audit --request` showed a request still waiting that had ended, and `endingRecorded` (the mark
 * that an end was told) missed the record and the end could be told again.
 *
 * dynalite, with the table's Query pages made small (Limit 2, set on each Query on its way) so
 * that 25 pages hold 50 records instead of 25 MB.
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { endingRecorded, readAudit, writeAudit } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { table } = emulatorsForFile();

/** The same table, every Query page of it at most two items. */
function smallPages(real: StateTable): StateTable {
  const send = ((command: unknown) => {
    if (command instanceof QueryCommand) command.input.Limit = 2;
    return (real.client.send as (c: unknown) => unknown)(command);
  }) as StateTable['client']['send'];
  return { ...real, client: { ...real.client, send } as StateTable['client'] };
}

it('reads every step of a request past 20 pages, its end (the newest) included', async () => {
  const id = 'audit-many-pages-1';
  const start = Date.parse('2026-03-02T10:00:00.000Z');
  const steps = 50;
  for (let i = 0; i < steps; i++) {
    await writeAudit(table, {
      requestId: id,
      at: new Date(start + i * 60_000),
      action: 'approve_phase',
      target: 'trg_1/ph_1',
      effectKey: 'approve_phase:trg_1:ph_1',
      requester: 'ci:deploy',
      rule: 'CI in office hours',
      reason: `outside the window (${i})`,
      result: i === steps - 1 ? 'approved' : 'deferred',
      dryRun: false,
    });
  }
  const paged = smallPages(table);
  const records = await readAudit(paged, id);
  expect(records).toHaveLength(steps);
  expect(records[0]?.reason).toBe('outside the window (0)');
  expect(records.at(-1)?.result).toBe('approved');
  expect(await endingRecorded(paged, id, 'approved')).toBe(true);
});
