/**
 * The run's time: the schedule's `event.time`, trusted only within what a real schedule can
 * deliver. EventBridge stamps the time it invokes at (to the second), so a real invocation is never
 * ahead of the clock; Lambda's async queue delivers a throttled one later, with its original time,
 * up to its maximum event age (the stack sets at most Lambda's ceiling, 6 hours). A time outside
 * that (a mistyped console test event, a manual invoke naming 2030) judged staleness and dated
 * requests at that time, and a run "in 2030" wrote the cursor so that every real run after it was
 * taken for an older, late copy (src/sweeper/late-copy.ts) and did nothing until then.
 */
import { RunTimeError } from './errors.js';

/** How far ahead of the clock a run's time may be: a hand-typed test event's "now", clocks' drift. */
export const AHEAD_MS = 60_000;
/** How far behind: Lambda's longest maximum event age (6 hours, infra's ceiling too), plus the same allowance. */
export const BEHIND_MS = 6 * 3_600_000 + AHEAD_MS;

/** The run's time from the schedule's `event.time` (the clock without one); throws when it is too far from the clock. */
export function runTime(time: string | undefined, clock: () => number): Date {
  const scheduled = time ? new Date(time) : undefined;
  if (!scheduled || Number.isNaN(scheduled.getTime())) return new Date(clock());
  const now = clock();
  const ahead = scheduled.getTime() - now;
  if (ahead > AHEAD_MS || -ahead > BEHIND_MS)
    throw new RunTimeError(
      `refusing a sweeper run at ${scheduled.toISOString()}: the clock says ${new Date(now).toISOString()}, ` +
        'and a scheduled invocation is never ahead of it, nor delivered more than 6 hours late; nothing was read or written',
    );
  return scheduled;
}
