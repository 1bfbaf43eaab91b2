/**
 * The worker's mutation budget as deployed. The key's limits (`MUTATION_LIMIT_*`, default the
 * platform's) are shared by every worker container through the state table
 * (src/state/mutation-budget.ts), so together they never exceed them however the queue spreads
 * the work; a 429 (another client spends part of the key) slows all of them down together. In
 * front of it, each container keeps an in-process limiter with the same limits
 * (src/console/rate-limiter.ts): it queues the container's own requests in order rather than
 * having each one take a ticket and wait in the table. It is not told of 429s: the key's pace
 * adapts once, in the shared budget, not once per container.
 */
import { integerEnv } from '../config/env.js';
import { limitWindows, PLATFORM_MUTATION_LIMITS } from '../console/platform-limits.js';
import {
  type AcquireOptions,
  type Clock,
  type MutationBudget,
  MutationLimiter,
  type Release,
  type WindowLimit,
} from '../console/rate-limiter.js';
import { createSharedMutationBudget } from '../state/mutation-budget.js';
import type { StateTable } from '../state/table.js';

/**
 * The key's mutation limits for this stack (`MUTATION_LIMIT_*`; default the platform's). A 0 is
 * refused at start, not raised to 1: whoever set it meant something else (a pause is `pause`).
 */
export function mutationLimitsFromEnv(env: Record<string, string | undefined> = process.env): WindowLimit[] {
  return limitWindows({
    per10s: integerEnv('MUTATION_LIMIT_10S', PLATFORM_MUTATION_LIMITS.per10s, env, { min: 1 }),
    per15min: integerEnv('MUTATION_LIMIT_15MIN', PLATFORM_MUTATION_LIMITS.per15min, env, { min: 1 }),
  });
}

export function workerMutationBudget(
  table: StateTable,
  limits: readonly WindowLimit[],
  clock?: Clock,
): MutationBudget {
  return chainBudgets(
    new MutationLimiter(limits, clock),
    createSharedMutationBudget(table, { limits, ...(clock ? { clock } : {}) }),
  );
}

/**
 * Waits for `first`, then `second`; the release gives both back (a 429 is told to `second` only).
 * When `second` refuses, nothing was sent: `first` gets its token back at once, not a window later.
 */
function chainBudgets(first: MutationBudget, second: MutationBudget): MutationBudget {
  return {
    async acquire(options?: AcquireOptions): Promise<Release> {
      const releaseFirst = await first.acquire(options);
      let releaseSecond: Release;
      try {
        releaseSecond = await second.acquire(options);
      } catch (error) {
        await releaseFirst({ sent: false });
        throw error;
      }
      return async (outcome) => {
        await releaseSecond(outcome);
        await releaseFirst(outcome?.sent === false ? { sent: false } : undefined);
      };
    },
  };
}
