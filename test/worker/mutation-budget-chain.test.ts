/**
 * A slot whose chain of skipped tickets is long (a storm of refusals): the ticket at the far end
 * may still wait or be in flight. It used to count as "used just now" past 10 skipped tickets,
 * and two holders went at once with a limit of 1.
 */
import { describe, expect, it } from 'vitest';
import { ApiTimeoutError } from '../../src/console/index.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, track, untilAsleep } from './budget-tables.js';

const tables = budgetTables('review-chain');

describe('a long chain of skipped tickets', () => {
  it('never grants a ticket while the ticket at the far end of its slot’s chain still waits for its turn', async () => {
    const table = await tables.fresh('storm');
    const clock = createManualClock();
    const limits = [{ max: 1, perMs: 1_000 }];
    const a = createSharedMutationBudget(table, { limits, clock, pollMs: 100 });
    const b = createSharedMutationBudget(table, { limits, clock, pollMs: 100 });
    await (await a.acquire())(); // ticket 1: sent and answered at t0
    // Ticket 2 (container A) waits for ticket 1's window: its turn is t0 + 1 s.
    const second = track(a.acquire());
    await untilAsleep(clock, () => second.done);
    // A storm of refusals in container B: tickets 3–13 each wait for ticket 2 and are refused.
    for (let i = 0; i < 11; i++) {
      await expect(b.acquire({ deadline: clock.now() + 50 })).rejects.toBeInstanceOf(ApiTimeoutError);
    }
    // Ticket 14 (container B) shares ticket 2's slot (max 1): it must come a window after ticket 2 ends.
    const fourteenth = track(b.acquire());
    await untilAsleep(clock, () => fourteenth.done, 2);
    await clock.advance(1_000);
    await untilAsleep(clock, () => second.done && fourteenth.done);
    await clock.advance(100);
    await untilAsleep(clock, () => second.done && fourteenth.done);
    // Neither was released: with a limit of 1 per second, only one of them may hold a grant.
    const granted = [second, fourteenth].filter((t) => typeof t.value === 'function').length;
    expect(granted).toBe(1);
  });
});
