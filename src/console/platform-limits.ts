/**
 * The platform's mutation limits per project: about 100 per 10 s and 900 per 15 min (429s
 * beyond, sometimes without Retry-After). The one home of these numbers: the client's default
 * budget, the worker's shared budget, the stack and the local stack all derive from it.
 */
export const PLATFORM_MUTATION_LIMITS = { per10s: 100, per15min: 900 } as const;

export interface MutationLimits {
  per10s: number;
  per15min: number;
}

/** The limits as the rate limiter's windows. */
export function limitWindows(limits: MutationLimits): Array<{ max: number; perMs: number }> {
  return [
    { max: limits.per10s, perMs: 10_000 },
    { max: limits.per15min, perMs: 15 * 60_000 },
  ];
}
