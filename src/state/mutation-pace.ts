/**
 * The key's pace in the shared mutation budget (src/state/mutation-budget.ts): how many
 * mutations its shortest window allows now. A 429 means another client spends part of the key;
 * the holder that met it records a cut on the budget's counter item (at most once per window),
 * and every container reads it back with its next number. The allowance then follows the
 * in-process limiter's rule (src/console/rate-limiter.ts): 90% of the window's use, regaining
 * that use window by window, then probing past it. Pure functions of the counter item and the
 * time, so a waiting ticket sees the allowance grow without reading the table again.
 */
import { cutTo, recovered } from '../console/adapt.js';
import type { WindowLimit } from '../console/rate-limiter.js';
import type { Item } from './dynamo.js';

/** The window a 429 cuts: the shortest. Slowing the pace slows the longer windows' use as well. */
export function paceOf(limits: readonly WindowLimit[]): WindowLimit {
  return limits.reduce((a, b) => (b.perMs < a.perMs ? b : a));
}

/** The pace's last cut, from the counter item; undefined when there was none. */
function cutOf(counter: Item | undefined) {
  const cut = {
    at: Number(counter?.cutAt?.N),
    allowed: Number(counter?.allowed?.N),
    ceiling: Number(counter?.ceiling?.N),
  };
  return [cut.at, cut.allowed, cut.ceiling].every(Number.isFinite) ? cut : undefined;
}

/** The pace's allowance at `now`: its max, or after a cut what has been regained since. */
export function paceAllowance(counter: Item | undefined, pace: WindowLimit, now: number): number {
  const cut = cutOf(counter);
  if (!cut) return pace.max;
  const windows = Math.max(0, Math.floor((now - cut.at) / pace.perMs));
  return Math.max(1, Math.min(pace.max, recovered(cut.allowed, cut.ceiling, windows)));
}

/** When the allowance next grows (the next window after the cut); never while it is at its max. */
export function paceRegrowsAt(counter: Item | undefined, pace: WindowLimit, now: number): number {
  const cut = cutOf(counter);
  if (!cut || paceAllowance(counter, pace, now) >= pace.max) return Number.POSITIVE_INFINITY;
  return cut.at + (Math.max(0, Math.floor((now - cut.at) / pace.perMs)) + 1) * pace.perMs;
}

/** True when a container cut the pace less than a window ago: a burst of 429s cuts it once. */
export function cutRecently(counter: Item | undefined, pace: WindowLimit, now: number): boolean {
  return Number(counter?.cutAt?.N) > now - pace.perMs;
}

/**
 * The counter item's update for a 429 met when the last window held `used` of our mutations
 * (what the key allowed us, capped by the allowance): 90% of it allowed, it the ceiling. Its
 * condition keeps two containers from cutting within one window.
 */
export function paceCut(counter: Item | undefined, pace: WindowLimit, inWindow: number, now: number) {
  const used = Math.max(1, Math.min(paceAllowance(counter, pace, now), inWindow));
  return {
    update: {
      expression: 'SET cutAt = :now, allowed = :allowed, ceiling = :ceiling',
      values: {
        ':now': { N: String(now) },
        ':allowed': { N: String(cutTo(used)) },
        ':ceiling': { N: String(used) },
        ':windowAgo': { N: String(now - pace.perMs) },
      },
    },
    condition: { expression: 'attribute_not_exists(cutAt) OR cutAt <= :windowAgo' },
  };
}
