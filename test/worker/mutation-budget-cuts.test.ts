/**
 * How a 429 cuts the shared mutation budget's pace: what it measures as the window's use, and
 * who it slows. Against the DynamoDB emulator, on a manual clock (the emulator answers in real
 * time; the budget's waits are on the clock).
 */
import { describe, expect, it } from 'vitest';
import type { Release } from '../../src/console/index.js';
import { getItem } from '../../src/state/dynamo.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER } from '../../src/state/mutation-numbers.js';
import type { StateTable } from '../../src/state/table.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, untilAsleep } from './budget-tables.js';

const tables = budgetTables('budget-cuts');
const freshTable = tables.fresh;

async function cutOf(table: StateTable) {
  const counter = await getItem(table, COUNTER);
  return [counter?.allowed?.N, counter?.ceiling?.N];
}

describe('the pace after a 429', () => {
  it('cuts the pace to what the short window held, not to the allowance, when the wait was for the long window', async () => {
    const table = await freshTable('long-wait');
    const clock = createManualClock();
    const limits = [
      { max: 10, perMs: 1_000 },
      { max: 3, perMs: 60_000 },
    ];
    const budget = createSharedMutationBudget(table, { limits, clock });
    for (let i = 0; i < 3; i++) {
      await (await budget.acquire())();
      await clock.advance(5_000);
    }
    // Ticket 4 waits for the long window (ticket 1's): the short one held nothing else.
    let fourth: Release | undefined;
    void budget.acquire().then((release) => {
      fourth = release;
    });
    await untilAsleep(clock, () => fourth !== undefined);
    await clock.advance(60_000);
    await untilAsleep(clock, () => fourth !== undefined);
    await fourth?.({ rateLimited: true });
    expect(await cutOf(table)).toEqual(['1', '1']);
  });

  it('counts the request that met the 429 (and its in-flight peers) in the window’s use', async () => {
    const table = await freshTable('undercount');
    const clock = createManualClock();
    const a = createSharedMutationBudget(table, { limits: [{ max: 4, perMs: 1_000 }], clock, pollMs: 100 });
    const held = await Promise.all(Array.from({ length: 4 }, () => a.acquire()));
    // Four more wait behind them: the latest numbers, none of which has ended.
    for (let i = 0; i < 4; i++) void a.acquire();
    await untilAsleep(clock, () => false, 4);
    for (const release of held.slice(0, 3)) await release();
    await held[3]?.({ rateLimited: true });
    expect(await cutOf(table)).toEqual(['3', '4']);
  });

  it('slows tickets already waiting when another container cuts the pace', async () => {
    const table = await freshTable('stale');
    const clock = createManualClock();
    const limits = [{ max: 4, perMs: 1_000 }];
    const a = createSharedMutationBudget(table, { limits, clock, pollMs: 100 });
    const b = createSharedMutationBudget(table, { limits, clock, pollMs: 100 });
    const metA429 = await b.acquire(); // ticket 1
    const held = await Promise.all(Array.from({ length: 3 }, () => a.acquire())); // 2–4
    const granted: number[] = [];
    // Tickets 5–8 took their numbers (and the counter) before the cut.
    for (let i = 0; i < 4; i++) void a.acquire().then(() => granted.push(clock.now()));
    await untilAsleep(clock, () => false, 4);
    await metA429({ rateLimited: true });
    const cut = await cutOf(table);
    for (const release of held) await release();
    const t = clock.now();
    for (let i = 0; i < 19; i++) {
      await untilAsleep(
        clock,
        () => granted.length >= 4,
        () => 4 - granted.length,
      );
      await clock.advance(100);
    }
    await untilAsleep(
      clock,
      () => granted.length >= 4,
      () => 4 - granted.length,
    );
    // Allowed 1 for the window after the cut, 2 in the next (its probe past the ceiling of 1).
    expect({ cut, grantedMsAfterCut: granted.map((at) => at - t) }).toEqual({
      cut: ['1', '1'],
      grantedMsAfterCut: [1_000, 1_000],
    });
  });
});
