/**
 * The mutation budget: one limiter per client, shared by all of its mutations, enforcing
 * several windows at once (default 100 per 10 s AND 900 per 15 min, the platform's limits).
 *
 * Each window is a bucket of `max` tokens. A token is held while its request is in flight and
 * comes back `perMs` after the response arrived — not as a continuous drip: a drip refill
 * lets `2 × max` requests through within one window (a full bucket plus a window's refill),
 * which a sliding-window server answers with 429s. Stamping at response time (the server saw
 * the request no later than that) keeps every `perMs` span of server arrivals within `max`.
 *
 * Waiters are served first in, first out (a backlog waits its turn instead of earning 429s);
 * one with a deadline is refused as soon as its turn provably comes too late; an aborted one leaves.
 *
 * Adaptive: another client on the same key can spend part of its limits. A 429 (a release with
 * `rateLimited`) cuts the fullest window's allowance to 90% of its use, once per window (one
 * burst answers many requests), and remembers that use as the ceiling the key allowed. Each
 * quiet window then halves the gap to it, and past it probes 1, 2, 4, … more, up to the max
 * (CUBIC's shape): against a steady neighbour the allowance stays near what it leaves, and when
 * the neighbour stops the max is back a few windows after the ceiling. The cut is shallower than
 * CUBIC's 70%: with the ceiling remembered a deep cut only wastes what the neighbour leaves
 * (shared-key drain: 0.86 of it at 70%, 0.87 at 80%, 0.96 at 90%); a neighbour that takes more
 * still meets a cut every window until the answers are quiet.
 */
import { cutTo, recovered } from './adapt.js';
import { ApiAbortError, ApiTimeoutError } from './errors.js';
import { limitWindows, PLATFORM_MUTATION_LIMITS } from './platform-limits.js';

export interface WindowLimit {
  /** Requests allowed ... */
  max: number;
  /** ... within any span of this many milliseconds. */
  perMs: number;
}

/** The platform's mutation limits (src/console/platform-limits.ts). */
export const DEFAULT_MUTATION_LIMITS: readonly WindowLimit[] = limitWindows(PLATFORM_MUTATION_LIMITS);

/** Time source, injectable so tests can drive the limiter without waiting. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The system's timers read against another time (epoch ms): a caller's clock, so its deadlines and ours agree. */
export function clockOf(now: () => number): Clock {
  return { ...systemClock, now };
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** Epoch ms: refuse (ApiTimeoutError) rather than be granted after this. */
  deadline?: number | undefined;
}

/**
 * Gives the token back; call it once the response (or the failure) arrived; say whether it was
 * a 429, or that the request was never sent (`sent: false`: the token comes back at once, as the
 * platform counted nothing). A shared budget records the return (a write): await it so the next
 * holder sees it.
 */
export type Release = (outcome?: { rateLimited?: boolean; sent?: boolean }) => void | Promise<void>;

/**
 * What the client waits on before each mutation: this in-process limiter, or a budget shared by
 * several processes (the worker's containers share one through the state table), or both.
 */
export interface MutationBudget {
  acquire(options?: AcquireOptions): Promise<Release>;
}

interface Waiter {
  resolve(release: Release): void;
  reject(error: Error): void;
  deadline: number | undefined;
  cleanup(): void;
}

interface Bucket {
  limit: WindowLimit;
  /** Times at which spent tokens come back, ascending. */
  returns: number[];
  /** The allowance after the last 429 (the max when there was none) and when it was set. */
  allowed: number;
  cutAt: number;
  /** The use the last 429 answered: what the key allowed us then. */
  ceiling: number;
}

export class MutationLimiter implements MutationBudget {
  private readonly buckets: Bucket[];
  private readonly queue: Waiter[] = [];
  private inFlight = 0;
  private timer: unknown;

  constructor(
    limits: readonly WindowLimit[] = DEFAULT_MUTATION_LIMITS,
    private readonly clock: Clock = systemClock,
  ) {
    if (limits.length === 0) throw new TypeError('a mutation budget needs at least one window');
    for (const limit of limits) {
      if (!Number.isInteger(limit.max) || limit.max < 1 || !(limit.perMs > 0)) {
        throw new TypeError(`invalid mutation window ${JSON.stringify(limit)}`);
      }
    }
    this.buckets = limits.map((limit) => ({
      limit: { ...limit },
      returns: [],
      allowed: limit.max,
      cutAt: Number.NEGATIVE_INFINITY,
      ceiling: limit.max,
    }));
  }

  /** Each window's allowance now: its max, or less for a while after a 429. */
  get allowances(): number[] {
    const now = this.clock.now();
    return this.buckets.map((bucket) => this.allowance(bucket, now));
  }

  /** Requests waiting for a token. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Waits for a token in every window, in arrival order.
   *
   * @example
   * const release = await limiter.acquire({ deadline: Date.now() + 5_000 });
   * try { await send(); } finally { release(); }
   */
  acquire(options: AcquireOptions = {}): Promise<Release> {
    const { signal, deadline } = options;
    if (signal?.aborted) return Promise.reject(new ApiAbortError('request aborted'));
    return new Promise<Release>((resolve, reject) => {
      let deadlineTimer: unknown;
      const onAbort = () =>
        this.drop(waiter, new ApiAbortError('request aborted while waiting for the mutation budget'));
      const waiter: Waiter = {
        resolve,
        reject,
        deadline,
        cleanup: () => {
          signal?.removeEventListener('abort', onAbort);
          if (deadlineTimer !== undefined) this.clock.clearTimeout(deadlineTimer);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline !== undefined) {
        deadlineTimer = this.clock.setTimeout(
          () => {
            this.pump(); // a token due exactly at the deadline still counts
            this.drop(waiter, budgetTimeout());
          },
          Math.max(0, deadline - this.clock.now()),
        );
      }
      this.queue.push(waiter);
      this.pump();
    });
  }

  private drop(waiter: Waiter, error: Error): void {
    const index = this.queue.indexOf(waiter);
    if (index === -1) return;
    this.queue.splice(index, 1);
    waiter.cleanup();
    waiter.reject(error);
    this.pump();
  }

  private expire(now: number): void {
    for (const bucket of this.buckets) {
      let expired = 0;
      while (expired < bucket.returns.length && (bucket.returns[expired] as number) <= now) expired++;
      if (expired > 0) bucket.returns.splice(0, expired);
    }
  }

  private pump(): void {
    const now = this.clock.now();
    this.expire(now);

    while (this.queue.length > 0 && this.buckets.every((b) => this.free(b, now) > 0)) {
      const waiter = this.queue.shift() as Waiter;
      waiter.cleanup();
      this.inFlight++;
      waiter.resolve(this.releaser());
    }

    // Refuse now whoever provably cannot get a token before their deadline.
    for (let index = 0; index < this.queue.length; ) {
      const waiter = this.queue[index] as Waiter;
      if (waiter.deadline !== undefined && this.earliestGrant(index, now) > waiter.deadline) {
        this.queue.splice(index, 1);
        waiter.cleanup();
        waiter.reject(budgetTimeout());
      } else {
        index++;
      }
    }

    this.schedule(now);
  }

  private free(bucket: Bucket, now: number): number {
    return this.allowance(bucket, now) - this.inFlight - bucket.returns.length;
  }

  private allowance(bucket: Bucket, now: number): number {
    if (bucket.allowed >= bucket.limit.max) return bucket.limit.max;
    const windows = Math.floor((now - bucket.cutAt) / bucket.limit.perMs);
    return Math.min(bucket.limit.max, recovered(bucket.allowed, bucket.ceiling, windows));
  }

  /** A 429: shrink the window closest to its allowance, unless it was cut less than a window ago. */
  private cut(now: number): void {
    this.expire(now); // the use a 429 answered: tokens back before it did not count (an idle queue is not pumped)
    let fullest: Bucket | undefined;
    let fullestUse = -1;
    for (const bucket of this.buckets) {
      const use = (this.inFlight + bucket.returns.length) / this.allowance(bucket, now);
      if (use > fullestUse) [fullest, fullestUse] = [bucket, use];
    }
    if (!fullest || now - fullest.cutAt < fullest.limit.perMs) return;
    const used = Math.min(this.allowance(fullest, now), this.inFlight + fullest.returns.length);
    fullest.allowed = cutTo(used);
    fullest.ceiling = Math.max(1, used);
    fullest.cutAt = now;
  }

  /** Lower bound of when the waiter at `position` can be granted. */
  private earliestGrant(position: number, now: number): number {
    return Math.max(now, ...this.buckets.map((bucket) => this.earliestFree(bucket, position + 1, now)));
  }

  /**
   * Lower bound of when `wanted` tokens of `bucket` are free: stamped tokens come back in order,
   * tokens still in flight no sooner than now + perMs, and after a cut the allowance regrows
   * window by window (ignoring that refused waiters whose turn came in time).
   */
  private earliestFree(bucket: Bucket, wanted: number, now: number): number {
    const { max, perMs } = bucket.limit;
    for (let from = now; ; ) {
      const allowance = this.allowance(bucket, from);
      const needed = wanted - (allowance - this.inFlight - bucket.returns.length);
      const at = needed <= 0 ? from : Math.max(from, bucket.returns[needed - 1] ?? now + perMs);
      const regrowsAt = bucket.cutAt + (Math.floor((from - bucket.cutAt) / perMs) + 1) * perMs;
      if (allowance >= max || at < regrowsAt) return at;
      from = regrowsAt;
    }
  }

  private schedule(now: number): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queue.length === 0) return;
    let wakeAt = now;
    for (const bucket of this.buckets) {
      if (this.free(bucket, now) > 0) continue;
      const next = bucket.returns[0];
      if (next === undefined) return; // only in-flight tokens: their release pumps
      wakeAt = Math.max(wakeAt, next);
    }
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, wakeAt - now);
  }

  private releaser(): Release {
    let released = false;
    return (outcome) => {
      if (released) return;
      released = true;
      const now = this.clock.now();
      // Counted before the token comes back: the request that met the 429 was part of the use.
      if (outcome?.rateLimited) this.cut(now);
      this.inFlight--;
      // A request never sent (a budget after this one refused it) spent nothing the platform counts.
      if (outcome?.sent !== false)
        for (const bucket of this.buckets) bucket.returns.push(now + bucket.limit.perMs);
      this.pump();
    };
  }
}

export function budgetTimeout(): ApiTimeoutError {
  return new ApiTimeoutError('the deadline passes before the mutation budget allows this request', false);
}
