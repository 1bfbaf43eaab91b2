/**
 * The mutation budget the worker's containers share through the state table, against the
 * DynamoDB emulator and a sandbox that enforces the key's limits by arrival time (429 beyond).
 * Windows are a few hundred ms so the runs take seconds; assertions are about what the sandbox
 * saw and what the budget did, never about how long it took.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiTimeoutError,
  type Clock,
  createConsoleClient,
  type WindowLimit,
} from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { getItem, putIfAbsent } from '../../src/state/dynamo.js';
import { updateItem } from '../../src/state/dynamo-update.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER, ticketKey } from '../../src/state/mutation-numbers.js';
import { paceAllowance } from '../../src/state/mutation-pace.js';
import type { StateTable } from '../../src/state/table.js';
import { workerMutationBudget } from '../../src/wiring/mutation-budget.js';
import { createManualClock } from '../console/helpers/manual-clock.js';
import { budgetTables, track, untilAsleep } from './budget-tables.js';

const tables = budgetTables('budget');
const freshTable = tables.fresh;

describe('a mutation budget shared by containers', () => {
  let api: RunningSandbox;
  const limits: WindowLimit[] = [
    { max: 5, perMs: 300 },
    { max: 12, perMs: 1_500 },
  ];
  beforeAll(async () => {
    api = await startSandbox({ apiKeys: ['shared-key'], rateLimits: { limits, retryAfter: true } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('keeps three containers together within the key limits, however unevenly the work is spread', async () => {
    const table = await freshTable('spread');
    const template = api.sandbox.state.triggers.get('trg_1');
    if (template?.currentPhaseID !== 'ph_1') throw new Error('sandbox seed changed: trg_1 is not at ph_1');
    const triggers = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => {
        const id = `${prefix}_${i}`;
        api.sandbox.state.triggers.set(id, { ...structuredClone(template), id, actions: [] });
        return id;
      });
    // As the event source does: one container got most of the batches.
    const work = { busy: triggers('busy', 20), a: triggers('a', 3), b: triggers('b', 3) };
    const first = api.sandbox.requests.length;
    await Promise.all(
      Object.values(work).map(async (ids) => {
        const client = createConsoleClient({
          baseUrl: api.url,
          apiKey: 'shared-key',
          maxRetries: 0,
          mutationBudget: workerMutationBudget(table, limits),
        });
        await Promise.all(ids.map((id) => client.releasePipelineTriggers.approve(id, { phaseID: 'ph_1' })));
      }),
    );
    const served = api.sandbox.requests.slice(first).filter((r) => r.method === 'PUT');
    expect(served.filter((r) => r.status === 429)).toHaveLength(0);
    expect(served.filter((r) => r.status === 200)).toHaveLength(26);
    // The busy container used more than a third of a window: the budget is shared, not split.
    const busy = served.filter((r) => r.path.includes('/busy_')).map((r) => r.at);
    const inOneWindow = Math.max(...busy.map((at) => busy.filter((t) => t >= at && t < at + 300).length));
    expect(inOneWindow).toBeGreaterThan(Math.floor(5 / 3));
  });
});

describe('tickets of the shared budget', () => {
  // A number whose holder stopped before writing its ticket: mutation-budget-tickets.test.ts.

  it('takes another number when a successor voided its own', async () => {
    const table = await freshTable('voided');
    // Number 1 is voided by a successor before its holder writes it.
    await updateItem(table, COUNTER, { expression: 'ADD n :zero', values: { ':zero': { N: '0' } } });
    await putIfAbsent(table, { ...ticketKey(1), doneBy: { N: '0' }, doneAt: { N: '-1' } });
    const budget = createSharedMutationBudget(table, { limits: [{ max: 10, perMs: 60_000 }] });
    await (await budget.acquire())();
    expect((await getItem(table, COUNTER))?.n?.N).toBe('2');
    expect((await getItem(table, ticketKey(2)))?.doneAt?.N).toMatch(/^\d+$/);
  });

  it('refuses at once when the turn comes after the deadline, and its slot stays its predecessor’s', async () => {
    const table = await freshTable('deadline');
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 60_000 }] });
    await (await budget.acquire())(); // ticket 1: sent, ended just now
    await expect(budget.acquire({ deadline: Date.now() + 50 })).rejects.toBeInstanceOf(ApiTimeoutError);
    expect((await getItem(table, ticketKey(2)))?.doneAt?.N).toBe('-1');
    // Ticket 3 must still wait for ticket 1's window: skipped ticket 2 hands its slot on.
    await expect(budget.acquire({ deadline: Date.now() + 50 })).rejects.toBeInstanceOf(ApiTimeoutError);
  });

  it('waits for a predecessor in flight, and no longer than its holder’s deadline', async () => {
    const table = await freshTable('in-flight');
    // A manual clock: on a loaded machine the emulator's round trips must not eat ticket 1's 100 ms.
    const clock = createManualClock();
    const t0 = clock.now();
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 20 }], pollMs: 10, clock });
    // Ticket 1's holder never releases (it crashed mid-request); its deadline bounds the wait.
    await budget.acquire({ deadline: clock.now() + 100 });
    const waiting = track(budget.acquire({ deadline: clock.now() + 10_000 }));
    for (let step = 0; step < 50 && !waiting.done; step++) {
      await untilAsleep(clock, () => waiting.done);
      await clock.advance(10);
    }
    // Not before ticket 1's deadline (its holder may send until then) and its window after it.
    expect(clock.now()).toBeGreaterThanOrEqual(t0 + 100 + 20);
    const second = waiting.value as Awaited<ReturnType<typeof budget.acquire>>;
    await second();
    expect((await getItem(table, ticketKey(2)))?.doneAt?.N).toMatch(/^\d+$/);
  });

  it('never starts before its window has passed on the clock, though its timer fires early', async () => {
    const table = await freshTable('early-timer');
    // A clock whose timers fire 3 ms early, as Node's do when the event loop's cached time lags.
    let now = 1_000_000;
    const early: Clock = {
      now: () => now,
      setTimeout: (callback, ms) =>
        setImmediate(() => {
          now += Math.max(1, ms - 3);
          callback();
        }),
      clearTimeout: (handle) => clearImmediate(handle as NodeJS.Immediate),
    };
    const budget = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 1_000 }], clock: early });
    await (await budget.acquire())(); // ticket 1 ends at 1,000,000
    await budget.acquire();
    expect(now).toBeGreaterThanOrEqual(1_001_000);
  });

  it('gives a refused request’s local token back when the shared budget refuses it', async () => {
    const table = await freshTable('chain');
    const limits = [{ max: 1, perMs: 60_000 }];
    const budget = workerMutationBudget(table, limits);
    await (await budget.acquire())();
    await expect(budget.acquire({ deadline: Date.now() + 50 })).rejects.toBeInstanceOf(ApiTimeoutError);
  });
});

describe('the key’s pace, adapted by every container together', () => {
  const limits = [{ max: 10, perMs: 60_000 }];

  /** Container A sends `sent` mutations that end at once, and holds `held` more in flight. */
  async function sendFrom(table: StateTable, sent: number, held: number) {
    const a = createSharedMutationBudget(table, { limits });
    for (let i = 0; i < sent; i++) await (await a.acquire())();
    return Promise.all(Array.from({ length: held }, () => a.acquire()));
  }

  it('slows every container after a 429 met by one: 90% of what the last window held', async () => {
    const table = await freshTable('pace-cut');
    const [metA429] = await sendFrom(table, 6, 1);
    await metA429?.({ rateLimited: true });
    const counter = await getItem(table, COUNTER);
    // Seven ended within the window (the refused one too): the ceiling; 90% of it is allowed.
    expect([counter?.allowed?.N, counter?.ceiling?.N]).toEqual(['6', '7']);
    // Another container's next ticket (8) now waits for ticket 2's window, beyond its deadline.
    const b = createSharedMutationBudget(table, { limits });
    await expect(b.acquire({ deadline: Date.now() + 50 })).rejects.toBeInstanceOf(ApiTimeoutError);
  });

  it('lets the other containers go on at the full pace when no 429 came', async () => {
    const table = await freshTable('pace-quiet');
    const [quiet] = await sendFrom(table, 6, 1);
    await quiet?.({ rateLimited: false });
    expect((await getItem(table, COUNTER))?.cutAt).toBeUndefined();
    const b = createSharedMutationBudget(table, { limits });
    await (await b.acquire({ deadline: Date.now() + 5_000 }))();
  });

  it('takes the allowance a holder had to wait at as the window’s use, however many tickets wait behind it', async () => {
    const table = await freshTable('pace-full');
    // The manual clock keeps ticket 4's wait a wait however slowly a loaded machine runs the first 3.
    const clock = createManualClock();
    const a = createSharedMutationBudget(table, { limits: [{ max: 3, perMs: 300 }], clock });
    for (let i = 0; i < 3; i++) await (await a.acquire())();
    // Ticket 4 waits for ticket 1's window: the budget was full at 3.
    const waiting = track(a.acquire({ deadline: clock.now() + 5_000 }));
    await untilAsleep(clock, () => waiting.done);
    await clock.advance(300);
    await untilAsleep(clock, () => waiting.done);
    const fourth = waiting.value as Awaited<ReturnType<typeof a.acquire>>;
    await fourth({ rateLimited: true });
    const counter = await getItem(table, COUNTER);
    expect([counter?.allowed?.N, counter?.ceiling?.N]).toEqual(['2', '3']);
  });

  it('cuts once per window, however many requests one burst of 429s answered', async () => {
    const table = await freshTable('pace-once');
    const [first, second] = await sendFrom(table, 5, 2);
    await first?.({ rateLimited: true });
    const cut = await getItem(table, COUNTER);
    await second?.({ rateLimited: true });
    expect(await getItem(table, COUNTER)).toEqual(cut);
  });

  it('regains the ceiling window by window after a cut, then probes past it', () => {
    const pace = { max: 100, perMs: 1_000 };
    const counter = { cutAt: { N: '5000' }, allowed: { N: '49' }, ceiling: { N: '71' } };
    const at = (ms: number) => paceAllowance(counter, pace, ms);
    expect([at(5_000), at(5_999), at(6_000), at(7_000), at(10_000), at(12_000)]).toEqual([
      49, 49, 60, 66, 71, 74,
    ]);
    expect(at(60_000)).toBe(100);
    expect(paceAllowance({ n: { N: '3' } }, pace, 0)).toBe(100);
  });
});
