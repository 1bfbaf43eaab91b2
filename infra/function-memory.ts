/**
 * The memory each function gets, in one place for the stack (infra/autopilot-stack.ts), the
 * benchmarks (bench/cold-start.bench.ts, bench/memory.bench.ts) and README. Each is the
 * smallest of the usual Lambda sizes with at least 2× headroom over the function's peak RSS
 * under its heaviest benchmark load (`npm run bench -- memory`: a webhook burst, a worker
 * draining, a sweep of 100,000 events of history), chosen for cost. Lambda gives CPU in
 * proportion to memory, so a larger size would also start faster; that is not what is chosen for.
 */
import type { HandlerName } from './bundling.js';

/** The sizes chosen from, MB. */
export const LAMBDA_MEMORY_SIZES_MB = [128, 256, 384, 512, 768, 1024] as const;

/** Peak RSS may be at most this fraction of the memory size. */
export const MEMORY_HEADROOM = 2;

export const FUNCTION_MEMORY_MB: Readonly<Record<HandlerName, number>> = {
  webhook: 384,
  worker: 256,
  sweeper: 384,
};

/** The smallest size of LAMBDA_MEMORY_SIZES_MB with MEMORY_HEADROOM over `peakMb`, if any. */
export function smallestMemoryFor(peakMb: number): number | undefined {
  return LAMBDA_MEMORY_SIZES_MB.find((size) => peakMb * MEMORY_HEADROOM <= size);
}
