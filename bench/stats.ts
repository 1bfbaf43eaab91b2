/**
 * The one home of the statistics every `bench/*.bench.ts` reports, so "p50" means the same
 * thing in every section: nearest-rank percentiles (the value at rank ceil(p/100 · n), no
 * interpolation) over a copy of the samples; the median of an even count is the mean of the
 * two middle values.
 */

const sortedCopy = (values: readonly number[]) => [...values].sort((a, b) => a - b);

/** Nearest-rank percentile of `values` (unsorted is fine); NaN for no samples. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = sortedCopy(values);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** The middle value (the mean of the two middle values for an even count); NaN for no samples. */
export function median(values: readonly number[]): number {
  const sorted = sortedCopy(values);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** p50 / p99 / max of one series, the figures most rows report. */
export function summarize(values: readonly number[]): { p50: number; p99: number; max: number; n: number } {
  return {
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length ? Math.max(...values) : Number.NaN,
    n: values.length,
  };
}

/** A figure rounded for the report (a number, so the report's formatter still groups it). */
export const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

/**
 * A fresh random order of `items` (Fisher–Yates; `random` seeded, e.g. src/sandbox/prng.ts). Interleaved contenders run in a new order
 * each round: a fixed cyclic order (rotation) keeps each one behind the same predecessor, and
 * what a predecessor leaves behind (another transport's sockets, its garbage) then lands on
 * the same contender every round.
 */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
