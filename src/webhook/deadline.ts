/**
 * Bounding work by the request's deadline, so Slack always gets its answer within three
 * seconds. Work that has not settled by then keeps running in the background; callers say
 * "not confirmed" rather than "failed", because it may still succeed.
 */

export type Settled<T> = { settled: true; value: T } | { settled: true; error: unknown } | { settled: false };

export async function settleBy<T>(
  work: Promise<T>,
  deadline: number,
  now: () => number,
): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), Math.max(0, deadline - now()));
  });
  try {
    return await Promise.race([
      work.then(
        (value): Settled<T> => ({ settled: true, value }),
        (error: unknown): Settled<T> => ({ settled: true, error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
