/**
 * A run of missing tickets above `oldThrough` is holders still to write theirs, never expired
 * tickets: with 25 numbers taken and not yet written, a limit-1 slot whose first ticket is in flight
 * must not be granted to a second request. Only numbers the previous version took well before
 * the upgrade count as expired (src/state/mutation-numbers.ts, expiredBelow).
 */
import { describe, expect, it } from 'vitest';
import { ApiTimeoutError } from '../../src/console/index.js';
import { updateItem } from '../../src/state/dynamo-update.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER } from '../../src/state/mutation-numbers.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, track, untilAsleep } from './budget-tables.js';

const tables = budgetTables('review3-missing25');

describe('25 not-yet-written numbers above a ticket in flight', () => {
  it('never grants a second request of a limit-1 slot while the first is in flight', async () => {
    const table = await tables.fresh('inflight');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }], clock });
    const release1 = await budget.acquire(); // ticket 1: sent, in flight (no response yet)
    // Numbers 2..26 were taken by holders still on their way to writing their tickets.
    await updateItem(table, COUNTER, { expression: 'ADD n :k', values: { ':k': { N: '25' } } });
    const next = track(budget.acquire({ deadline: clock.now() + 5_000 })); // ticket 27
    await untilAsleep(clock, () => next.done);
    // Ticket 1 is still in flight: ticket 27 must not have been granted.
    expect(typeof next.value).not.toBe('function');
    await clock.advance(5_001);
    await untilAsleep(clock, () => next.done);
    expect(next.error).toBeInstanceOf(ApiTimeoutError);
    await release1();
  }, 120_000);

  it('24 not-yet-written numbers do keep the slot (control)', async () => {
    const table = await tables.fresh('control');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }], clock });
    const release1 = await budget.acquire();
    await updateItem(table, COUNTER, { expression: 'ADD n :k', values: { ':k': { N: '24' } } });
    const next = track(budget.acquire({ deadline: clock.now() + 5_000 }));
    await untilAsleep(clock, () => next.done);
    expect(typeof next.value).not.toBe('function');
    await clock.advance(5_001);
    await untilAsleep(clock, () => next.done);
    expect(next.error).toBeInstanceOf(ApiTimeoutError);
    await release1();
  }, 120_000);
});
