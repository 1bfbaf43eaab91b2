/**
 * Lambda entry point of the sweeper (EventBridge schedule). Thin: the policy is loaded at cold
 * start (validated with zod when this bundle was built and trusted by its SHA-256; any other
 * policy file is validated here, so an invalid one fails the init with its zod path: see
 * src/wiring/policy-file.ts); the dependencies are built from the environment once per container; each
 * invocation gets the time it has left from the Lambda context, so the run stops with a margin
 * and saves progress.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { SweepFailedError } from '../src/sweeper/errors.js';
import type { RunSummary } from '../src/sweeper/summary.js';
import { createSweeper } from '../src/sweeper/sweeper.js';
import { sweeperDepsFromEnv } from '../src/wiring/from-env.js';

const sweeper = createSweeper(sweeperDepsFromEnv());

export async function handler(
  event: Pick<ScheduledEvent, 'time'>,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<RunSummary> {
  // The schedule's own time is "now" for staleness and requestedAt (it is the wall clock on
  // a live schedule; the local stack and tests can name another moment).
  const scheduled = event?.time ? new Date(event.time) : undefined;
  const now = scheduled && !Number.isNaN(scheduled.getTime()) ? scheduled : new Date();
  const summary = await sweeper.run({ now, remainingMs: () => context.getRemainingTimeInMillis() });
  if (summary.stop === 'error') throw new SweepFailedError(`sweep failed reading events: ${summary.error}`);
  return summary;
}
