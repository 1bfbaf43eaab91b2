/**
 * On a counter the previous version kept (`n` alone: `oldThrough` 0 for its first 30 minutes),
 * a slot's chain of long-expired tickets used to count as "used just now" past a cap: with the
 * platform's limits and a counter past 90,000, an idle budget refused every mutation.
 */
import { describe, expect, it } from 'vitest';
import { putItem } from '../../src/state/dynamo.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER } from '../../src/state/mutation-numbers.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables } from './budget-tables.js';

const tables = budgetTables('review2-legacycap');

describe('the shared budget on a long-used counter the previous version kept', () => {
  it('grants an acquire on an idle budget (every earlier ticket long expired)', async () => {
    const table = await tables.fresh('idle');
    await putItem(table, { ...COUNTER, n: { N: '100000' } });
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, {
      limits: [
        { max: 100, perMs: 10_000 },
        { max: 900, perMs: 900_000 },
      ],
      clock,
    });
    // A worker with a minute left: nothing else is in flight, the budget is idle.
    const outcome = await budget.acquire({ deadline: clock.now() + 60_000 }).then(
      () => 'granted',
      (error: unknown) => `refused: ${String(error)}`,
    );
    expect(outcome).toBe('granted');
  }, 120_000);
});
