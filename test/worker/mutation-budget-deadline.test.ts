/**
 * The shared budget's waiter wakes just after its deadline to give up. It used to check whether
 * its turn had come first, and was granted 1 ms after the deadline (AcquireOptions.deadline:
 * "refuse rather than be granted after this").
 */
import { describe, expect, it } from 'vitest';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, track, untilAsleep } from './budget-tables.js';

const tables = budgetTables('review-deadline');

describe('a holder with a deadline', () => {
  it('is never granted after its deadline', async () => {
    const table = await tables.fresh('late-grant');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, {
      limits: [{ max: 1, perMs: 100 }],
      clock,
      pollMs: 250,
    });
    const t0 = clock.now();
    const first = await budget.acquire(); // ticket 1: in flight
    const deadline = t0 + 150;
    const second = track(
      budget.acquire({ deadline }).then((release) => Object.assign(release, { grantedAt: clock.now() })),
    );
    await untilAsleep(clock, () => second.done);
    await clock.advance(10);
    await first(); // ticket 1 answered at t0 + 10: ticket 2's turn is t0 + 110, before its deadline
    // Its wait was set to end at the deadline + 1 ms (the poll, 250 ms, reached past it).
    await clock.advance(141);
    await untilAsleep(clock, () => second.done);
    expect(second.done).toBe(true);
    // Either refused, or granted no later than the deadline.
    if (second.value) expect(second.value.grantedAt).toBeLessThanOrEqual(deadline);
  });
});
