/**
 * The worker drain's baseline: the physical limit. The shortest span in which the platform's
 * sliding windows (a mutation is refused when its window already holds `max` accepted ones,
 * src/sandbox/rate-limit.ts) let our n mutations through, starting when our first was
 * accepted, with another client's accepted mutations where they really were.
 *
 * Ours are placed one by one, each at the earliest millisecond where every window that would
 * hold it (the one ending there, and the ones ending at each later mutation within `perMs`)
 * stays within `max` (times in whole milliseconds, as the sandbox stamps them). The other
 * client's mutations are fixed: they happened, and ours cannot take their place. (The previous
 * baseline counted how many of theirs fell in the span and let all of them, with ours, go in
 * bursts at the best moments: against a steady neighbour that was up to one window shorter than
 * any schedule allows, e.g. 17.5 s where the sandbox accepts nothing shorter than 20 s.)
 */

export interface WindowLimit {
  max: number;
  perMs: number;
}

/** Index of the first element greater than x in an ascending array. */
function upperBound(sorted: readonly number[], x: number): number {
  let [lo, hi] = [0, sorted.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Accepted mutations in (end − perMs, end]. */
function held(lists: ReadonlyArray<readonly number[]>, end: number, perMs: number): number {
  let count = 0;
  for (const list of lists) count += upperBound(list, end) - upperBound(list, end - perMs);
  return count;
}

/** The oldest accepted mutation after `from`. */
function oldestAfter(lists: ReadonlyArray<readonly number[]>, from: number): number {
  let oldest = Number.POSITIVE_INFINITY;
  for (const list of lists) oldest = Math.min(oldest, list[upperBound(list, from)] ?? oldest);
  return oldest;
}

/** The earliest times, from `start`, at which our n mutations can be accepted, in order. */
export function idealSchedule(
  n: number,
  limits: readonly WindowLimit[],
  others: readonly number[] = [],
  start = 0,
): number[] {
  const theirs = [...others].sort((a, b) => a - b);
  const ours: number[] = [];
  let t = start;
  while (ours.length < n) {
    const later = fitsFrom(t, ours, theirs, limits);
    if (later === t) ours.push(t);
    else t = later;
  }
  return ours;
}

/** The ideal span: from `start` to the earliest moment the n-th of ours can be accepted. */
export function idealSpanMs(
  n: number,
  limits: readonly WindowLimit[],
  others: readonly number[] = [],
  start = 0,
): number {
  if (n <= 0) return 0;
  return (idealSchedule(n, limits, others, start)[n - 1] as number) - start;
}

/**
 * `t` when one more of ours fits at `t`; otherwise the next moment worth trying: when the
 * oldest mutation of a full window leaves it, or just after a full window's last mutation.
 */
function fitsFrom(
  t: number,
  ours: readonly number[],
  theirs: readonly number[],
  limits: readonly WindowLimit[],
): number {
  const lists = [ours, theirs];
  let next = t;
  for (const { max, perMs } of limits) {
    // Windows ending at t or at a later mutation within perMs: each would hold ours at t.
    const ends = [t, ...theirs.slice(upperBound(theirs, t), upperBound(theirs, t + perMs - 1))];
    for (const end of ends) {
      if (held(lists, end, perMs) + 1 <= max) continue;
      // A full window ending later: ours must come after its end. Ending at t: after its oldest left.
      next = Math.max(next, end > t ? end + 1 : oldestAfter(lists, t - perMs) + perMs);
    }
  }
  return next;
}
