/**
 * The real platform's mutation limits (about 100 per 10 s and 900 per 15 min per project), as
 * sliding windows: a mutation is refused when the window already holds `max` accepted
 * mutations. Requests refused before the limit (401, 403) or by it (429) do not count. One
 * the platform received and then refused (a 400 body, a 404 id) does: the limit is checked
 * before the body and the route (FACTS.md: the platform limits mutations, not successes; the
 * spec says nothing either way), which is also how the client's budget counts them, so tests
 * never prove a budget the platform may not grant. Time comes from the sandbox's injectable clock.
 */

export type RateLimitConfig = {
  limits: Array<{ max: number; perMs: number }>;
  retryAfter?: boolean;
  /**
   * The limits are the platform's divided by this factor (a benchmark that scales time). The
   * platform's `Retry-After` has 1-s resolution in its own time; scaled, that resolution is
   * 1000 / timeScale ms, so the sandbox also sends `retry-after-ms` rounded up to it (the
   * client prefers it). Without it a 429 would cost timeScale times more windows than it does
   * on the platform. Default 1: `Retry-After` only.
   */
  timeScale?: number;
};

export const PLATFORM_LIMITS: RateLimitConfig = {
  limits: [
    { max: 100, perMs: 10_000 },
    { max: 900, perMs: 15 * 60_000 },
  ],
  retryAfter: true,
};

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number; max: number; perMs: number };

export type RateLimiter = { check(key: string): RateDecision; reset(): void };

export function createRateLimiter(config: RateLimitConfig, now: () => number): RateLimiter {
  // Per key (the sandbox's project), per limit: accepted times, oldest first (pruned from the front).
  const logs = new Map<string, number[][]>();
  return {
    check(key) {
      const t = now();
      let log = logs.get(key);
      if (!log) {
        log = config.limits.map(() => []);
        logs.set(key, log);
      }
      // Every full window is asked, not the first: a retry passes only once all of them allow it,
      // so Retry-After names the latest (the 10-s window's end is no use while the 15-min one is full).
      let refused: RateDecision | undefined;
      for (let i = 0; i < config.limits.length; i++) {
        const { max, perMs } = config.limits[i] as { max: number; perMs: number };
        const times = log[i] as number[];
        let drop = 0;
        while (drop < times.length && (times[drop] as number) <= t - perMs) drop++;
        if (drop > 0) times.splice(0, drop);
        if (times.length >= max) {
          const oldest = times[times.length - max] as number;
          const retryAfterMs = Math.max(1, oldest + perMs - t);
          if (!refused || (!refused.ok && retryAfterMs > refused.retryAfterMs))
            refused = { ok: false, retryAfterMs, max, perMs };
        }
      }
      if (refused) return refused;
      for (const times of log) times.push(t);
      return { ok: true };
    },
    reset() {
      logs.clear();
    },
  };
}
