import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recovered } from '../../src/console/adapt.js';
import { ApiAbortError, ApiTimeoutError, MutationLimiter, type Release } from '../../src/console/index.js';
import { createManualClock } from './helpers/manual-clock.js';

/** Starts `n` acquisitions and reports which have been granted so far. */
function acquireMany(limiter: MutationLimiter, n: number, options = {}) {
  const granted: number[] = [];
  const releases = new Map<number, Release>();
  const failures = new Map<number, unknown>();
  const all = Array.from({ length: n }, (_, i) =>
    limiter.acquire(options).then(
      (release) => {
        granted.push(i);
        releases.set(i, release);
      },
      (error) => failures.set(i, error),
    ),
  );
  return { granted, releases, failures, all };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('MutationLimiter', () => {
  it('grants up to max at once and makes the rest wait until perMs after a release', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 3, perMs: 10_000 }], clock);
    const run = acquireMany(limiter, 5);
    await tick();
    expect(run.granted).toEqual([0, 1, 2]);
    expect(limiter.waiting).toBe(2);

    await clock.advance(1_000);
    run.releases.get(0)?.();
    run.releases.get(1)?.();
    await clock.advance(9_999);
    expect(run.granted).toEqual([0, 1, 2]);
    await clock.advance(1);
    expect(run.granted).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps a token held while its request is in flight, however long that takes', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 1, perMs: 1_000 }], clock);
    const run = acquireMany(limiter, 2);
    await clock.advance(60_000);
    expect(run.granted).toEqual([0]);
    run.releases.get(0)?.();
    await clock.advance(999);
    expect(run.granted).toEqual([0]);
    await clock.advance(1);
    expect(run.granted).toEqual([0, 1]);
  });

  it('enforces every window at once (the tighter one wins at each moment)', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter(
      [
        { max: 2, perMs: 1_000 },
        { max: 3, perMs: 60_000 },
      ],
      clock,
    );
    const run = acquireMany(limiter, 4);
    await tick();
    expect(run.granted).toEqual([0, 1]);
    run.releases.get(0)?.();
    run.releases.get(1)?.();
    await clock.advance(1_000);
    expect(run.granted).toEqual([0, 1, 2]);
    run.releases.get(2)?.();
    await clock.advance(30_000);
    // The short window is free again, but the long one has spent all 3 tokens.
    expect(run.granted).toEqual([0, 1, 2]);
    await clock.advance(28_999);
    expect(run.granted).toEqual([0, 1, 2]);
    await clock.advance(1);
    expect(run.granted).toEqual([0, 1, 2, 3]);
  });

  it('serves waiters first in, first out', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 1, perMs: 100 }], clock);
    const run = acquireMany(limiter, 6);
    for (let i = 0; i < 6; i++) {
      await tick();
      run.releases.get(i)?.();
      await clock.advance(100);
    }
    expect(run.granted).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refuses at once a waiter whose turn provably comes after its deadline', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 1, perMs: 10_000 }], clock);
    const first = acquireMany(limiter, 1);
    await tick();
    first.releases.get(0)?.();
    const late = acquireMany(limiter, 1, { deadline: clock.now() + 5_000 });
    await tick();
    expect(late.failures.get(0)).toBeInstanceOf(ApiTimeoutError);
    expect(limiter.waiting).toBe(0);
  });

  it('grants a waiter whose turn comes before its deadline', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 1, perMs: 10_000 }], clock);
    const first = acquireMany(limiter, 1);
    await tick();
    first.releases.get(0)?.();
    const patient = acquireMany(limiter, 1, { deadline: clock.now() + 10_000 });
    await clock.advance(10_000);
    expect(patient.granted).toEqual([0]);
    expect(patient.failures.size).toBe(0);
  });

  it('gives up at the deadline while waiting on a request that is still in flight', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 1, perMs: 1_000 }], clock);
    acquireMany(limiter, 1);
    const waiting = acquireMany(limiter, 1, { deadline: clock.now() + 2_000 });
    await clock.advance(1_999);
    expect(waiting.failures.size).toBe(0);
    await clock.advance(1);
    expect(waiting.failures.get(0)).toBeInstanceOf(ApiTimeoutError);
  });

  it('lets an aborted waiter leave the queue without holding up the others', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 1, perMs: 1_000 }], clock);
    const first = acquireMany(limiter, 1);
    const controller = new AbortController();
    const aborted = acquireMany(limiter, 1, { signal: controller.signal });
    const next = acquireMany(limiter, 1);
    await tick();
    controller.abort();
    await tick();
    expect(aborted.failures.get(0)).toBeInstanceOf(ApiAbortError);
    first.releases.get(0)?.();
    await clock.advance(1_000);
    expect(next.granted).toEqual([0]);
  });

  it('after a 429 admits 90% of what the fullest window held, once per window, then regains the ceiling and probes past it', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter(
      [
        { max: 40, perMs: 1_000 },
        { max: 400, perMs: 60_000 },
      ],
      clock,
    );
    const first = acquireMany(limiter, 30);
    await tick();
    expect(first.granted).toHaveLength(30);
    // The whole burst is answered 429: one cut, not thirty; 30 in use is the ceiling.
    for (const release of first.releases.values()) release({ rateLimited: true });
    expect(limiter.allowances).toEqual([27, 400]);

    await clock.advance(999);
    const second = acquireMany(limiter, 40);
    await clock.advance(1);
    // The tokens came back, but one quiet window regains only half the gap to the ceiling.
    expect(second.granted).toHaveLength(29);
    expect(limiter.allowances).toEqual([29, 400]);
    for (const release of second.releases.values()) release();
    // 30 (the ceiling), then 31, 33, 37, and the max.
    const seen: number[] = [];
    for (let window = 0; window < 7; window++) {
      await clock.advance(1_000);
      seen.push(limiter.allowances[0] as number);
    }
    expect(seen).toEqual([30, 31, 33, 37, 40, 40, 40]);
  });

  it('recovers from a cut by halving the gap to the ceiling, then doubling each probe past it', () => {
    const path = Array.from({ length: 10 }, (_, windows) => recovered(49, 71, windows));
    expect(path).toEqual([49, 60, 66, 69, 70, 71, 72, 74, 78, 86]);
    expect(recovered(70, 70, 0)).toBe(70);
    expect(recovered(70, 70, 2)).toBe(73);
    expect(recovered(1, 1_000, 10_000)).toBe(Number.POSITIVE_INFINITY);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 0, max: 100 }),
        (allowed, above, windows) => {
          const ceiling = allowed + above;
          const now = recovered(allowed, ceiling, windows);
          const next = recovered(allowed, ceiling, windows + 1);
          // Never below the cut, never back down, and every quiet window gains until the ceiling.
          return now >= allowed && next >= now && (now >= ceiling || next > now);
        },
      ),
    );
  });

  it('keeps the full budget when requests end without a 429', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 5, perMs: 1_000 }], clock);
    const run = acquireMany(limiter, 5);
    await tick();
    for (const release of run.releases.values()) release({ rateLimited: false });
    expect(limiter.allowances).toEqual([5]);
  });

  it('does not refuse a waiter whose turn comes before its deadline because the allowance regrows after a 429', async () => {
    const clock = createManualClock();
    const t0 = clock.now();
    const limiter = new MutationLimiter([{ max: 4, perMs: 1_000 }], clock);
    const held: Release[] = [];
    for (let i = 0; i < 4; i++) held.push(await limiter.acquire());
    // 4 in use answered by a 429: the allowance is 3 until t0 + 1 s, then 4 again.
    await held[0]?.({ rateLimited: true });
    await clock.advance(500);
    for (const release of held.slice(1)) await release();
    // Tokens come back at t0 + 1 s (one) and t0 + 1.5 s (three): at allowance 3 the first free
    // one would be at 1.5 s, past the deadline; with the regrown allowance it is at 1 s.
    const outcome = limiter.acquire({ deadline: t0 + 1_200 }).then(
      () => ({ grantedAt: clock.now() - t0 }),
      (error: Error) => ({ refusedAt: clock.now() - t0, error: error.name }),
    );
    await clock.advance(1_000);
    expect(await outcome).toEqual({ grantedAt: 1_000 });
    // Still refused at once when even the regrown allowance comes too late (t0 + 1.5 s: 4 allowed, 1 in flight).
    const more = acquireMany(limiter, 4, { deadline: clock.now() + 100 });
    await tick();
    expect(more.granted).toEqual([0, 1, 2]);
    expect(more.failures.get(3)).toBeInstanceOf(ApiTimeoutError);
  });

  it('gives a token back at once when the request was never sent', async () => {
    const clock = createManualClock();
    const limiter = new MutationLimiter([{ max: 1, perMs: 1_000 }], clock);
    const unsent = await limiter.acquire();
    await unsent({ sent: false });
    const run = acquireMany(limiter, 2);
    await tick();
    expect(run.granted).toEqual([0]);
    // A request that was sent still holds its token for a window after its response.
    await run.releases.get(0)?.();
    await clock.advance(999);
    expect(run.granted).toEqual([0]);
    await clock.advance(1);
    expect(run.granted).toEqual([0, 1]);
  });

  it('rejects windows that cannot work', () => {
    expect(() => new MutationLimiter([])).toThrow(TypeError);
    expect(() => new MutationLimiter([{ max: 0, perMs: 1000 }])).toThrow(TypeError);
    expect(() => new MutationLimiter([{ max: 1, perMs: 0 }])).toThrow(TypeError);
  });

  it('never lets more than max requests be in flight or released within any perMs span', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 10, max: 200 }),
        fc.array(
          fc.record({ gap: fc.integer({ min: 0, max: 80 }), latency: fc.integer({ min: 0, max: 300 }) }),
          {
            minLength: 1,
            maxLength: 25,
          },
        ),
        async (max, perMs, requests) => {
          const clock = createManualClock();
          const limiter = new MutationLimiter([{ max, perMs }], clock);
          // Each request: [grantedAt, releasedAt]; the server may see it anywhere in between.
          const spans: Array<[number, number]> = [];
          const done: Promise<void>[] = [];
          for (const request of requests) {
            done.push(
              limiter.acquire().then(async (release) => {
                const grantedAt = clock.now();
                const span: [number, number] = [grantedAt, Number.POSITIVE_INFINITY];
                spans.push(span);
                clock.setTimeout(() => {
                  span[1] = clock.now();
                  release();
                }, request.latency);
              }),
            );
            await clock.advance(request.gap);
          }
          for (let i = 0; i < 200 && spans.length < requests.length; i++) await clock.advance(perMs);
          await clock.advance(1_000);
          expect(spans.length).toBe(requests.length);
          // At each grant, count every request that could land within the perMs before it.
          for (const [grantedAt] of spans) {
            const overlapping = spans.filter(([g, r]) => g <= grantedAt && r > grantedAt - perMs).length;
            expect(overlapping).toBeLessThanOrEqual(max);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
