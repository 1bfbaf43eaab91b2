/**
 * On a counter the previous version kept, a waiting acquire polls its predecessors: tickets it had
 * voided on an earlier look (skipped, doneBy 0) used to reset the run of missing ones, so every
 * poll voided 25 more old tickets (526 puts in 20 polls). They count as the missing ones they were.
 */
import { describe, expect, it } from 'vitest';
import { putItem } from '../../src/state/dynamo.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER } from '../../src/state/mutation-numbers.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, track, untilAsleep } from './budget-tables.js';

const tables = budgetTables('review-regress5-legacywalk');

describe('a waiting acquire on a counter the previous version kept', () => {
  it('does not void more legacy tickets on every poll', async () => {
    const table = await tables.fresh('poll');
    await putItem(table, { ...COUNTER, n: { N: '20000' } });
    const clock = createManualClock();
    const limits = [
      { max: 1, perMs: 1_000 },
      { max: 2, perMs: 3_000 },
    ];
    const budget = createSharedMutationBudget(table, { limits, clock, pollMs: 50 });
    const release1 = await budget.acquire(); // ticket 20001: in flight
    let puts = 0;
    const send = table.client.send.bind(table.client);
    table.client.send = (async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'PutItemCommand') puts++;
      return send(command as never);
    }) as unknown as typeof table.client.send;
    try {
      const next = track(budget.acquire({ deadline: clock.now() + 2_000 })); // ticket 20002
      await untilAsleep(clock, () => next.done);
      const afterFirstLook = puts;
      for (let i = 0; i < 20 && !next.done; i++) {
        await clock.advance(50);
        await untilAsleep(clock, () => next.done);
      }
      // 20 more looks at the same predecessors: nothing new to void (the first look voided what it had to).
      expect({ afterFirstLook, after20Polls: puts }).toEqual({
        afterFirstLook,
        after20Polls: afterFirstLook,
      });
    } finally {
      table.client.send = send;
      await release1();
    }
  }, 240_000);
});
