/**
 * What the shared mutation budget's suites share: one DynamoDB emulator per file and a table of
 * its own for each test (the counter and the tickets start afresh), and a way to let the
 * emulator answer while the budget's waits sleep on a manual clock.
 */
import { afterAll, beforeAll } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createStateTable, type StateTable } from '../../src/state/table.js';
import type { ManualClock } from '../console/helpers/manual-clock.js';

/** Starts the emulator for this file; `fresh(name)` makes a table named `<prefix>-<name>`. */
export function budgetTables(prefix: string) {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startEmulators();
  });
  afterAll(async () => {
    await emulators?.stop();
  });
  return {
    async fresh(name: string): Promise<StateTable> {
      const tableName = `${prefix}-${name}`;
      await createStateTable(emulators.dynamo, tableName);
      return { client: emulators.dynamo, tableName };
    },
  };
}

/** Far longer than any wait for the emulator takes, even on a loaded machine: only to name a stuck wait. */
const STUCK_MS = 20_000;

/**
 * Lets the emulator answer until `sleepers` waits are asleep on the clock, or `settled`; both are
 * read again at every look (a count taken at the call goes stale as waits are granted). It waits
 * for that condition, not for a number of looks: it used to give up silently after 2,000 looks
 * (4 s when idle, much less work done under load) and the test then moved the clock before the
 * waits it meant to wake were asleep. A condition that never comes fails here, saying so.
 */
export async function untilAsleep(
  clock: ManualClock,
  settled: () => boolean = () => false,
  sleepers: number | (() => number) = 1,
) {
  const wanted = typeof sleepers === 'function' ? sleepers : () => sleepers;
  const started = performance.now();
  while (clock.pendingTimers() < wanted() && !settled()) {
    if (performance.now() - started > STUCK_MS)
      throw new Error(
        `untilAsleep: ${clock.pendingTimers()} of ${wanted()} waits asleep after ${STUCK_MS} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A promise's outcome as it stands, readable at any time. */
export function track<T>(promise: Promise<T>) {
  const state: { value?: T; error?: unknown; done: boolean; at?: number } = { done: false };
  promise.then(
    (value) => Object.assign(state, { value, done: true }),
    (error) => Object.assign(state, { error, done: true }),
  );
  return state;
}
