/**
 * The `/autopilot events` listing as the webhook's read handler answers it, for the listing tests
 * (events-*.test.ts): the read context and Console client at a pinned time, and the listing's
 * times as it shows them.
 */
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import type { ConsoleReads, ReadContext } from '../../src/webhook/reads.js';
import { testPolicy } from './harness.js';

/** A time as a listing row shows it. */
export const TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g;

/** `ms` as a listing row shows it (UTC, to the second). */
export const asText = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** What a reader's `/autopilot events` is answered with at `now`, over `console`. */
export function readContext(console: ConsoleReads, now: number): ReadContext {
  return {
    console,
    policy: testPolicy(),
    status: { readPause: async () => ({ paused: false }) },
    userId: 'U0READER',
    slash: '/autopilot',
    deadline: now + 5_000,
    now: () => now,
  };
}

/** A Console client of the platform (or stand-in) at `baseUrl`, its clock pinned at `now`, without retries. */
export function consoleAt(baseUrl: string, now: number) {
  return createConsoleClient({
    baseUrl,
    apiKey: 'sandbox-key',
    maxRetries: 0,
    mutationBudget: false,
    clock: clockOf(() => now),
  });
}
