/**
 * A run older than one that already ran. The handler takes the schedule's `event.time` as the
 * run's time, and Lambda's async queue delivers a throttled or failed invocation again, with its
 * original time, up to its maximum event age (an operator's test event names any time). Started
 * after a newer run, such a run's horizon (its time plus the clock skew allowance) lies behind the
 * stored boundary, which the walk takes for a cursor poisoned by a future-stamped event: it read
 * the whole log again from its start, and wrote the cursor and the read-up-to back to its older
 * time. The newer run read all it could have, so it does nothing and says why.
 *
 * A cursor written at a time ahead of the clock was written by no real run, but by one whose
 * invocation named a future time (before the handler refused those: src/sweeper/run-time.ts).
 * Taken as newer, it made every real run do nothing until that time; it supersedes nothing.
 */
import type { Logger } from '../observability/logger.js';
import type { Cursor } from '../state/sweep-cursor.js';
import { aheadOf, notAfter } from '../util/future-times.js';
import { AHEAD_MS } from './run-time.js';
import type { RunSummary } from './summary.js';

/**
 * True (the summary and a warning say so) when a run at `now` is older than the one that wrote
 * `stored`; `clock` is the wall clock's time.
 */
export function skipLateCopy(
  stored: Cursor | undefined,
  now: Date,
  clock: number,
  summary: RunSummary,
  logger: Logger,
): boolean {
  // `updatedAt` is the time of the run that wrote the cursor (src/state/sweep-cursor.ts writeCursor).
  const newer = stored?.updatedAt === undefined ? Number.NaN : Date.parse(stored.updatedAt);
  if (newer > clock + AHEAD_MS) {
    logger.warn('the cursor was written by a run at a time ahead of the clock: it supersedes no run', {
      runAt: now.toISOString(),
      cursorWrittenAt: stored?.updatedAt,
    });
    return false;
  }
  if (!(newer > now.getTime())) return false;
  summary.partial = true;
  summary.stop = 'superseded';
  logger.warn(
    'this run is older than one that already ran (a late copy of a scheduled invocation): it does nothing',
    { runAt: now.toISOString(), newerRunAt: stored?.updatedAt },
  );
  return true;
}

/**
 * The cursor without the times such a run (at a time ahead of the clock) wrote, each read as the
 * others a reader keeps (src/util/future-times.ts). Read up to "now" in 2030 (`caughtUpAt`): every
 * real run after it that did not read up to its own time reported SweeperLag 0 (behind by no more
 * than since it last caught up) until then, and SweeperLagging never fired; dropped. Its reading
 * of the log started in 2030 (`historyEnd`, `observedSince`, `recordingSince`): the stale sweep
 * counted "exposures observed for -1100 days" and judged nothing until then; each reads as the
 * clock's time instead (observation counts from this run on, never from before: it errs towards
 * not archiving), stored so by the next cursor this run writes.
 */
export function withoutFutureTimes(stored: Cursor | undefined, clock: number): Cursor | undefined {
  if (!stored) return stored;
  const { caughtUpAt, historyEnd, observedSince, recordingSince } = stored;
  const read: Cursor = {
    ...stored,
    historyEnd: notAfter(historyEnd, clock),
    observedSince: notAfter(observedSince, clock),
    recordingSince: notAfter(recordingSince, clock),
  };
  if (typeof caughtUpAt === 'number' && aheadOf(caughtUpAt, clock)) delete read.caughtUpAt;
  return read;
}
