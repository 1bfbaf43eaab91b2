/**
 * A counter the previous version kept (`n` alone, no mark: src/state/mutation-numbers.ts): for a
 * whole `staleAfterMs` the takes say nothing is old (`oldThrough` 0). A slot's chain followed to
 * its end then walked down to number 0, voiding every long-expired ticket one conditional put at
 * a time, long past the holder's deadline. Each DynamoDB request here takes 5 ms of the clock.
 */
import { describe, expect, it } from 'vitest';
import { ApiTimeoutError } from '../../src/console/index.js';
import { putItem } from '../../src/state/dynamo.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER } from '../../src/state/mutation-numbers.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables } from './budget-tables.js';

const tables = budgetTables('legacy-upgrade');

describe('the shared budget on a counter the previous version kept', () => {
  it('answers an acquire with a 300 ms deadline after a bounded walk (granted or refused)', async () => {
    const table = await tables.fresh('upgrade');
    // Months of use by the previous version: number 20,000 taken, its tickets long expired (TTL).
    await putItem(table, { ...COUNTER, n: { N: '20000' } });
    const clock = createManualClock();
    let requests = 0;
    const send = table.client.send.bind(table.client);
    table.client.send = (async (command: never) => {
      requests++;
      await clock.advance(5);
      return send(command);
    }) as typeof table.client.send;
    const budget = createSharedMutationBudget(table, { limits: [{ max: 10, perMs: 1_000 }], clock });
    const deadline = clock.now() + 300;
    const outcome = await budget.acquire({ deadline }).then(
      () => 'granted',
      (error: unknown) => (error instanceof ApiTimeoutError ? 'refused' : String(error)),
    );
    // Granted (a slot found used at the cap) or refused at the deadline, after a bounded walk.
    expect(['granted', 'refused']).toContain(outcome);
    expect(requests, `${requests} DynamoDB requests`).toBeLessThan(200);
  });
});
