/**
 * After a storm of more than 100 refusals in one slot, the ticket at the far end of the chain
 * (still waiting for its turn) and a new ticket must not both be granted with a limit of 1 (a cap
 * on the chain walk that counted the slot as "used just now" let them).
 */
import { describe, expect, it } from 'vitest';
import { ApiTimeoutError } from '../../src/console/index.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, track, untilAsleep } from './budget-tables.js';

const tables = budgetTables('review2-chaincap');

describe('a chain of more than 100 skipped tickets', () => {
  it('never grants two tickets of one slot at once (limit 1 per second)', async () => {
    const table = await tables.fresh('storm');
    const clock = createManualClock();
    const limits = [{ max: 1, perMs: 1_000 }];
    const a = createSharedMutationBudget(table, { limits, clock, pollMs: 100 });
    const b = createSharedMutationBudget(table, { limits, clock, pollMs: 100 });
    await (await a.acquire())(); // ticket 1: sent and answered at t0
    const second = track(a.acquire()); // ticket 2 waits for ticket 1's window: t0 + 1 s
    await untilAsleep(clock, () => second.done);
    // 105 refusals in container B (tickets 3–107), each waiting behind ticket 2.
    for (let i = 0; i < 105; i++) {
      await expect(b.acquire({ deadline: clock.now() + 50 })).rejects.toBeInstanceOf(ApiTimeoutError);
    }
    const last = track(b.acquire()); // ticket 108: same slot as ticket 2
    await untilAsleep(clock, () => last.done, 2);
    await clock.advance(1_000);
    await untilAsleep(clock, () => second.done && last.done);
    await clock.advance(100);
    await untilAsleep(clock, () => second.done && last.done);
    const granted = [second, last].filter((t) => typeof t.value === 'function').length;
    expect(granted).toBe(1);
  }, 120_000);
});
