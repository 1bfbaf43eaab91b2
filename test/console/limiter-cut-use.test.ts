/**
 * The in-process limiter's cut after a 429 measures the use the 429 answered. It used to count
 * tokens whose return time had passed (they leave only at the next pump), inflating the use.
 */
import { describe, expect, it } from 'vitest';
import { MutationLimiter } from '../../src/console/index.js';
import { createManualClock } from './helpers/manual-clock.js';

describe('MutationLimiter cut after a 429', () => {
  it('measures the window’s use without tokens that came back before the 429', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 10, perMs: 1_000 }], clock);
    // A burst of 9 at t0, all answered at once: their tokens come back at t0 + 1000.
    const burst = await Promise.all(Array.from({ length: 9 }, () => limiter.acquire()));
    for (const release of burst) release();
    await clock.advance(900);
    const one = await limiter.acquire(); // t0 + 900: the burst's tokens are still out
    await clock.advance(600); // t0 + 1500: they came back 500 ms ago
    // The 429 answers a window (t0 + 500, t0 + 1500] that held just this one request.
    one({ rateLimited: true });
    // 90% of a use of 1 is 1 — not 90% of 10 stale-counted tokens.
    expect(limiter.allowances).toEqual([1]);
  });
});
