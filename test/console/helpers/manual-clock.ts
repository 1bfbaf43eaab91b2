/** A clock that only moves when the test says so, for the mutation budget. */
import type { Clock } from '../../../src/console/index.js';

export interface ManualClock extends Clock {
  /** Moves time forward, firing due timers in order. */
  advance(ms: number): Promise<void>;
  pendingTimers(): number;
}

export function createManualClock(start = 1_000_000): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    pendingTimers: () => timers.size,
    async advance(ms) {
      const target = now + ms;
      await flush();
      for (let guard = 0; guard < 100_000; guard++) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= target)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].callback();
        await flush();
      }
      now = target;
      await flush();
    },
  };
}
