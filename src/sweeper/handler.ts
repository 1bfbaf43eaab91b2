/**
 * The sweeper as a scheduled Lambda handler: the schedule's time is "now" (refused when no real
 * schedule can have it: src/sweeper/run-time.ts), the invocation's remaining time bounds the run,
 * and a run that could not read the events fails the invocation (so the stack's "sweeper errors"
 * alarm fires). `functions/sweeper.ts` and the local stack use it.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { SweepFailedError } from './errors.js';
import { runTime } from './run-time.js';
import type { RunSummary } from './summary.js';
import type { Sweeper } from './sweeper.js';

export function sweeperHandler(sweeper: Sweeper) {
  return async (
    event: Pick<ScheduledEvent, 'time'>,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<RunSummary> => {
    // The schedule's own time is "now" for staleness and requestedAt (it is the wall clock on
    // a live schedule, or a little behind it for a late delivery), checked against the sweeper's
    // own clock (the one its deadlines and lease use), before anything is read or written.
    const now = runTime(event?.time, sweeper.clock);
    const summary = await sweeper.run({ now, remainingMs: () => context.getRemainingTimeInMillis() });
    if (summary.stop === 'error') throw new SweepFailedError(`sweep failed reading events: ${summary.error}`);
    return summary;
  };
}
