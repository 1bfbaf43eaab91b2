/**
 * HeldRequests ("requests that wait") was put at every deferral, and a held request is deferred
 * again at each look the release tick sends it back for while its wait goes on (a limit still
 * spent, a sweep still behind, a window still shut): one request waiting three looks counted
 * three held requests. It is counted once per holding: when the request begins to wait.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import { releaseDeps } from './questions.js';

const bench = benchForFile();

describe('HeldRequests for a request over its hourly limit at two looks', () => {
  it('counts the one held request once, not once per look', async () => {
    const lines: string[] = [];
    const metrics = createMetrics({
      service: 'worker',
      sink: (l) => lines.push(l),
      now: () => bench.clock.now.getTime(),
    });
    const worker = bench.worker({ metrics });
    const tick = releaseDeps(bench);
    // `ci:limited` may approve once an hour (the bench policy's "limited CI").
    const limited = (triggerId: string, requestId: string) =>
      bench.send({ triggerId, phaseId: 'ph_1', requestId, requestedBy: { source: 'ci', id: 'limited' } });
    const at = (iso: string) => {
      bench.clock.now = new Date(iso);
    };

    at('2026-11-23T10:00:00Z');
    await limited('trg_1', 'rl-first');
    await bench.run(worker, await bench.receive());
    await limited('trg_2', 'rl-waits');
    await bench.run(worker, await bench.receive());
    expect((await listHeld(bench.table)).map((h) => [h.requestId, h.why])).toEqual([['rl-waits', 'limit']]);

    // The next hour's one approval goes to another request before the held one's look.
    at('2026-11-23T11:00:00Z');
    await limited('trg_3', 'rl-next-hour');
    await bench.run(worker, await bench.receive());
    at('2026-11-23T11:00:30Z');
    expect((await releaseHeld(tick, bench.clock.now)).released).toEqual(['rl-waits']);
    await bench.run(worker, await bench.receive());
    expect((await listHeld(bench.table)).map((h) => [h.requestId, h.why])).toEqual([['rl-waits', 'limit']]);

    // Its second look finds the limit free: approved, no longer held.
    at('2026-11-23T12:00:30Z');
    expect((await releaseHeld(tick, bench.clock.now)).released).toEqual(['rl-waits']);
    await bench.run(worker, await bench.receive());
    expect(await listHeld(bench.table)).toEqual([]);
    expect(bench.approvals('trg_2')).toBe(1);

    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const deferred = parsed.filter((l) => l.requestId === 'rl-waits' && l.Outcome === 'deferred');
    expect(deferred).toHaveLength(2);
    const held = parsed.filter((l) => 'HeldRequests' in l);
    expect(held.map((l) => [l.requestId, l.Why])).toEqual([['rl-waits', 'limit']]);
  });
});
