/**
 * The worker drain's baseline (bench/ideal-span.ts) is the physical limit: the sandbox's own
 * rate limiter accepts the schedule it computes, with another client's mutations where they were.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idealSchedule, idealSpanMs } from '../../bench/ideal-span.js';
import { createRateLimiter } from '../../src/sandbox/rate-limit.js';

/** The platform's limits divided by 4, as the worker benchmark runs them. */
const LIMITS = [
  { max: 100, perMs: 2_500 },
  { max: 900, perMs: 225_000 },
];

/** Replays ours and theirs, in time order, through the sandbox's limiter: the refused ones. */
function refusedBySandbox(ours: number[], theirs: number[], limits = LIMITS) {
  const events = [...theirs.map((at) => ({ at, who: 'theirs' })), ...ours.map((at) => ({ at, who: 'ours' }))];
  events.sort((a, b) => a.at - b.at);
  let now = 0;
  const limiter = createRateLimiter({ limits }, () => now);
  return events.filter((event) => {
    now = event.at;
    return !limiter.check('key').ok;
  });
}

/** A client at 30 a window, stamped as its own limiter grants them: 30 together, then a wait. */
const steadyNeighbour = (periodMs: number, offsetMs: number) =>
  Array.from({ length: 270 }, (_, i) => Math.floor(i / 30) * periodMs + (i % 30) * 5 - offsetMs);

describe('the worker drain ideal span', () => {
  it('alone on the key: a window of 100 at a time, and the 900 of 15 min at most', () => {
    expect([idealSpanMs(100, LIMITS), idealSpanMs(101, LIMITS), idealSpanMs(900, LIMITS)]).toEqual([
      0, 2_500, 20_000,
    ]);
    expect(idealSpanMs(901, LIMITS)).toBe(225_000);
  });

  it('with a steady neighbour, is what the sandbox accepts, not one window shorter', () => {
    const theirs = steadyNeighbour(2_700, 1_000);
    const ours = idealSchedule(598, LIMITS, theirs, 0);
    expect(refusedBySandbox(ours, theirs)).toEqual([]);
    // The previous estimate (all of theirs in the span and ours in bursts at the best moments) said 17.5 s.
    expect(idealSpanMs(598, LIMITS, theirs, 0)).toBe(20_000);
  });

  it('gives a schedule the sandbox accepts whole, and none of ours could come a millisecond sooner', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -3_000, max: 20_000 }), { maxLength: 120 }),
        fc.integer({ min: 1, max: 160 }),
        (others, n) => {
          const limits = [{ max: 20, perMs: 1_000 }];
          // Theirs as the sandbox could have accepted them: drop what it would have refused.
          const accepted: number[] = [];
          let now = 0;
          const limiter = createRateLimiter({ limits }, () => now);
          for (const at of [...others].sort((a, b) => a - b)) {
            now = at;
            if (limiter.check('key').ok) accepted.push(at);
          }
          const ours = idealSchedule(n, limits, accepted, 0);
          if (refusedBySandbox(ours, accepted, limits).length > 0) return false;
          // Greedy and earliest: moving any one of ours a millisecond sooner breaks a window.
          return ours.every((at, i) => {
            if (at === 0 || (i > 0 && ours[i - 1] === at)) return true;
            const sooner = ours.map((t, j) => (j === i ? at - 1 : t));
            return refusedBySandbox(sooner, accepted, limits).length > 0;
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
