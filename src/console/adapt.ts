/**
 * How a mutation budget adapts to 429s, in one place for the in-process limiter
 * (src/console/rate-limiter.ts, where the reasons are told) and the worker containers' shared
 * pace (src/state/mutation-pace.ts): the cut after a 429, and the way back up.
 */

/** Share of its use a window keeps after a 429. */
const DECREASE = 0.9;

/** The allowance a window keeps after a 429 answered `used` requests in it. */
export function cutTo(used: number): number {
  return Math.max(1, Math.floor(used * DECREASE));
}

/**
 * The allowance `windows` quiet windows after a cut to `allowed` below `ceiling`: each window
 * halves the gap (rounding down, so the ceiling is reached), then each probes twice as far past
 * it as the one before (1, 3, 7, … over the ceiling). The caller caps it at the window's max.
 */
export function recovered(allowed: number, ceiling: number, windows: number): number {
  let [gap, left] = [Math.max(0, ceiling - allowed), windows];
  for (; left > 0 && gap > 0; left--) gap = Math.floor(gap / 2);
  if (gap > 0) return ceiling - gap;
  // 2^31 windows past the ceiling is beyond any max: stop doubling before the number overflows.
  return left > 30 ? Number.POSITIVE_INFINITY : ceiling + 2 ** left - 1;
}
