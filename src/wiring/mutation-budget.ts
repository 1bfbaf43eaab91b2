/**
 * The worker's mutation budget as deployed. The key's limits (`MUTATION_LIMIT_*`, default the
 * platform's) are shared by every worker container through the state table
 * (src/state/mutation-budget.ts), so together they never exceed them however the queue spreads
 * the work. In front of it, each container keeps its own adaptive limiter with the same limits
 * (src/console/rate-limiter.ts): a 429 means another client spends part of the key, and the
 * container slows down by itself until the answers are quiet again.
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

/** The key's mutation limits for this stack (`MUTATION_LIMIT_*`; default the platform's). */
export function mutationLimitsFromEnv(env: Record<string, string | undefined> = process.env): WindowLimit[] {
  return limitWindows({
    per10s: Math.max(1, integerEnv('MUTATION_LIMIT_10S', PLATFORM_MUTATION_LIMITS.per10s, env)),
    per15min: Math.max(1, integerEnv('MUTATION_LIMIT_15MIN', PLATFORM_MUTATION_LIMITS.per15min, env)),
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

/** Waits for `first`, then `second`; the release gives both back (the 429 is told to both). */
function chainBudgets(first: MutationBudget, second: MutationBudget): MutationBudget {
  return {
    async acquire(options?: AcquireOptions): Promise<Release> {
      const releaseFirst = await first.acquire(options);
      let releaseSecond: Release;
      try {
        releaseSecond = await second.acquire(options);
      } catch (error) {
        await releaseFirst();
        throw error;
      }
      return async (outcome) => {
        await releaseSecond(outcome);
        await releaseFirst(outcome);
      };
    },
  };
}
