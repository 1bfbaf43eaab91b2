/**
 * Runs `work` over `items` with at most `limit` in flight (at least one), in order of start.
 * The one bounded-concurrency pool: the worker's records, the sweeper's sends, the chaos
 * run's reads. A `work` that throws rejects the whole run (callers that must go on catch inside).
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  });
  await Promise.all(lanes);
}
