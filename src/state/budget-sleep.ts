/**
 * Waits of the shared mutation budget (src/state/mutation-budget.ts) on its injected clock, so
 * tests drive them with a manual clock. A module of its own: the budget's ticket logic fills
 * its module, and these are the only places it waits. An aborted signal ends a wait at once,
 * also when it fired before the wait began (during a DynamoDB call): a listener added to a
 * signal already aborted is never called.
 */
import { ApiAbortError } from '../console/errors.js';
import type { Clock } from '../console/rate-limiter.js';

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new ApiAbortError('request aborted while waiting for the shared mutation budget');
}

/**
 * Sleeps until the clock reads `at`. A timer may fire a few ms early against the clock: Node
 * starts it from the event loop's cached time, which lags while the loop is busy. Starting one
 * ms early is starting inside the window the platform counts, so the holder sleeps again.
 */
export async function sleepUntil(clock: Clock, at: number, signal: AbortSignal | undefined): Promise<void> {
  for (let left = at - clock.now(); left > 0; left = at - clock.now()) await sleep(clock, left, signal);
}

function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ApiAbortError('request aborted while waiting for the shared mutation budget'));
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(new ApiAbortError('request aborted while waiting for the shared mutation budget'));
    };
    const timer = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
