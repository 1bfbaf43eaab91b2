/**
 * Times stored by a run whose time lay ahead of the clock. Before the sweeper's handler refused
 * such runs (7167ede, src/sweeper/run-time.ts), a console test event or manual invoke naming 2030
 * ran at that time and stored it: how far the log was read, since when observation and recording
 * count, since when a config is watched. Taken as real, such a time says the sweeper read
 * up to now (a held archive runs blind) or that a config is watched or observed "since 2030"
 * (never judged until then). Every reader treats such a time the same way, by this helper.
 */

/** How far ahead of a reader's time a stored time may be: clocks' drift between functions. */
export const CLOCK_DRIFT_MS = 60_000;

/** True when the stored time `at` lies ahead of the reader's time `now` by more than clocks drift. */
export function aheadOf(at: number, now: number): boolean {
  return at > now + CLOCK_DRIFT_MS;
}

/**
 * A stored time as a reader at `now` takes it: one ahead of it (see above) reads as `now`, which
 * always errs towards not archiving (a config watched or observed from now on, not since earlier);
 * null and undefined (unknown) stay so.
 */
export function notAfter<T extends number | null | undefined>(at: T, now: number): T {
  return (typeof at === 'number' && aheadOf(at, now) ? now : at) as T;
}
