/**
 * The shared mutation budget's tickets when holders are slow, stop, abort or wait long, and the
 * worker's chain of budgets when the shared one refuses: against the DynamoDB emulator, on a
 * manual clock (the emulator answers in real time; the budget's waits are on the clock).
 */
import { describe, expect, it } from 'vitest';
import { ApiAbortError, ApiTimeoutError } from '../../src/console/index.js';
import { getItem, putIfAbsent } from '../../src/state/dynamo.js';
import { deleteItem } from '../../src/state/dynamo-delete.js';
import { updateItem } from '../../src/state/dynamo-update.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER, ticketKey } from '../../src/state/mutation-numbers.js';
import { workerMutationBudget } from '../../src/wiring/mutation-budget.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, track, untilAsleep } from './budget-tables.js';

const tables = budgetTables('budget-tickets');
const freshTable = tables.fresh;

describe('tickets not yet written', () => {
  it('never admits two requests within one window when two same-slot numbers are not yet written', async () => {
    const table = await freshTable('two-missing');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }], clock });
    await (await budget.acquire())(); // ticket 1 ended just now
    // Numbers 2 and 3 were taken by holders still on their way to writing their tickets.
    await updateItem(table, COUNTER, { expression: 'ADD n :two', values: { ':two': { N: '2' } } });
    const fourth = track(budget.acquire({ deadline: clock.now() + 5_000 }));
    await untilAsleep(clock, () => fourth.done);
    expect(fourth.error).toBeInstanceOf(ApiTimeoutError);
    // Both were voided: their holders, writing late, take other numbers instead of sending.
    expect((await getItem(table, ticketKey(2)))?.doneAt?.N).toBe('-1');
    expect((await getItem(table, ticketKey(3)))?.doneAt?.N).toBe('-1');
  });

  it('neither reads nor waits for numbers so old their windows have passed, after the budget was idle', async () => {
    const table = await freshTable('idle');
    const clock = createManualClock();
    const options = { limits: [{ max: 2, perMs: 60_000 }], clock, maxHoldMs: 1_000 };
    const budget = createSharedMutationBudget(table, options);
    for (let i = 0; i < 2; i++) await (await budget.acquire())();
    // Their items expired (TTL) while the budget was idle for longer than a hold and a window.
    for (const n of [1, 2]) await deleteItem(table, ticketKey(n));
    await clock.advance(61_001);
    const third = track(budget.acquire({ deadline: clock.now() + 100 }));
    const fourth = track(budget.acquire({ deadline: clock.now() + 100 }));
    await untilAsleep(clock, () => third.done && fourth.done);
    expect([typeof third.value, typeof fourth.value]).toEqual(['function', 'function']);
    expect([await getItem(table, ticketKey(1)), await getItem(table, ticketKey(2))]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('learns which numbers are old while the budget stays busy, without an idle spell', async () => {
    const table = await freshTable('busy');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, {
      limits: [{ max: 2, perMs: 1_000 }],
      clock,
      maxHoldMs: 1_000,
    });
    // A take every 1.5 s: never idle for a hold and a window (2 s), yet numbers grow old.
    for (let i = 0; i < 6; i++) {
      await (await budget.acquire())();
      await clock.advance(1_500);
    }
    const old = Number((await getItem(table, COUNTER))?.oldThrough?.N);
    expect(old).toBeGreaterThanOrEqual(2);
    for (let n = 1; n <= old; n++) await deleteItem(table, ticketKey(n));
    const next = track(budget.acquire({ deadline: clock.now() + 100 }));
    await untilAsleep(clock, () => next.done);
    expect(typeof next.value).toBe('function');
    expect(await getItem(table, ticketKey(old))).toBeUndefined();
  });

  it('looks past a number whose holder stopped before writing its ticket', async () => {
    const table = await freshTable('crash');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }], clock });
    // A holder took number 1 just now (the counter as its take left it) and stopped before its ticket was written.
    await updateItem(table, COUNTER, {
      expression: 'SET n = :one, oldThrough = :zero, markN = :one, markAt = :now, takenAt = :now',
      values: { ':one': { N: '1' }, ':zero': { N: '0' }, ':now': { N: String(clock.now()) } },
    });
    const second = track(budget.acquire({ deadline: clock.now() + 100 }));
    await untilAsleep(clock, () => second.done);
    expect(typeof second.value).toBe('function');
    expect((await getItem(table, ticketKey(1)))?.doneAt?.N).toBe('-1');
  });
});

describe('holders that abort or wait long', () => {
  it('leaves the wait at once when the signal is aborted while a DynamoDB call is under way', async () => {
    const table = await freshTable('abort');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }], clock });
    await (await budget.acquire())();
    const controller = new AbortController();
    const second = track(budget.acquire({ signal: controller.signal }));
    controller.abort(); // the take is under way
    await untilAsleep(clock, () => second.done);
    expect(second.error).toBeInstanceOf(ApiAbortError);
    expect(clock.pendingTimers()).toBe(0); // no wait left behind
    // Its ticket is skipped: successors look past it.
    expect((await getItem(table, ticketKey(2)))?.doneAt?.N).toBe('-1');
  });

  it('never lets a holder without a deadline send after its doneBy, when successors already count it as ended', async () => {
    const table = await freshTable('past-doneby');
    const clock = createManualClock();
    const limits = [{ max: 1, perMs: 60_000 }];
    const shortHold = createSharedMutationBudget(table, { limits, clock, maxHoldMs: 1_000, pollMs: 100 });
    const other = createSharedMutationBudget(table, { limits, clock, pollMs: 100 });
    await (await shortHold.acquire())(); // ticket 1 ends at t0
    const t0 = clock.now();
    // Ticket 2's turn (t0 + 60 s) comes after its doneBy (t0 + 1 s): ticket 3 counts it ended then.
    const second = track(shortHold.acquire());
    await untilAsleep(clock, () => second.done);
    const third = track(other.acquire().then((release) => Object.assign(release, { at: clock.now() })));
    for (let i = 0; i < 700 && !(second.done && third.done); i++) {
      await untilAsleep(clock, () => second.done && third.done);
      await clock.advance(100);
    }
    expect(second.error).toBeInstanceOf(ApiTimeoutError);
    expect(third.value?.at).toBeDefined();
    expect((third.value?.at ?? 0) - t0).toBeGreaterThanOrEqual(60_000);
  });
});

describe('the worker’s chain of budgets', () => {
  it('does not spend the in-process limiter’s tokens on requests the shared budget refused', async () => {
    const table = await freshTable('chain-refused');
    const clock = createManualClock();
    const limits = [
      { max: 1, perMs: 1_000 },
      { max: 3, perMs: 60_000 },
    ];
    const containerA = workerMutationBudget(table, limits, clock);
    const containerB = workerMutationBudget(table, limits, clock);
    const t0 = clock.now();
    const releaseA = await containerA.acquire();
    // B's three attempts are refused by the shared budget (A holds the only slot).
    for (let i = 0; i < 3; i++) {
      await expect(containerB.acquire({ deadline: clock.now() + 50 })).rejects.toBeInstanceOf(
        ApiTimeoutError,
      );
      await clock.advance(1_000);
    }
    await releaseA();
    const attempt = track(containerB.acquire({ deadline: clock.now() + 5_000 }));
    await untilAsleep(clock, () => attempt.done);
    await clock.advance(1_000);
    await untilAsleep(clock, () => attempt.done);
    const numbersTaken = (await getItem(table, COUNTER))?.n?.N;
    expect({ at: clock.now() - t0, numbersTaken, error: attempt.error, done: attempt.done }).toEqual({
      at: 4_000,
      numbersTaken: '5',
      error: undefined,
      done: true,
    });
  });
});

describe('a request that never left', () => {
  it('leaves its slot to the next ticket at once (the platform counted nothing)', async () => {
    const table = await freshTable('unsent');
    const clock = createManualClock();
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }], clock });
    await (await budget.acquire())({ sent: false }); // e.g. a refused connection
    // Had it been sent, the next could only start 60 s later: refused for a 100 ms deadline.
    const next = track(budget.acquire({ deadline: clock.now() + 100 }));
    await untilAsleep(clock, () => next.done);
    expect(next.error).toBeUndefined();
    expect(typeof next.value).toBe('function');
  });
});

describe('the counter the previous version kept', () => {
  it('is not read as idle after deploy: a ticket that version sent just now still counts', async () => {
    const table = await freshTable('legacy-counter');
    const clock = createManualClock();
    // The previous version: a take is `ADD n :one`, then ticket n is put; its release stamps doneAt.
    await updateItem(table, COUNTER, { expression: 'ADD n :one', values: { ':one': { N: '1' } } });
    await putIfAbsent(table, {
      ...ticketKey(1),
      doneBy: { N: String(clock.now() + 900_000) },
      doneAt: { N: String(clock.now()) }, // sent and answered just now
    });
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }], clock });
    const second = track(budget.acquire({ deadline: clock.now() + 120_000 }));
    await untilAsleep(clock, () => second.done);
    expect(second.done).toBe(false); // it waits for ticket 1's minute
    expect((await getItem(table, COUNTER))?.oldThrough?.N).toBeUndefined();
    await clock.advance(60_000);
    await untilAsleep(clock, () => second.done);
    expect(second.done).toBe(true);
  });
});
