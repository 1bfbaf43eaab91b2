/**
 * A held stale-sweep archive is re-checked against the last-seen index, and waits while the
 * sweeper has not read the event log up to the last hour (archive-unread-exposure.test.ts). But
 * the sweeper reads the log twice: its walk, and the late-exposure walk 6 hours behind, which
 * alone records an exposure a client logged more than 15 minutes late (src/sweeper/late-
 * exposures.ts). The read-up-to the worker checks was written by the first walk alone: with the
 * late walk failing on every run since the judgment, a config back in use through a late client
 * was archived the next day, its exposure never recorded.
 */
import { describe, expect, it } from 'vitest';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import { failingEvents, holdOneStaleArchive, releaseTick, sweepAt } from './stale-archive.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a held stale-config archive while the late-exposure walk fails', () => {
  it('is not executed although the sweeper’s own walk reads on time', async () => {
    // Listed newest first: the sweeper's walk reads the top pages, the late walk, 6 hours behind,
    // deeper ones (from page 3 on here).
    let lateFails = false;
    const events = failingEvents(bench, (params) => lateFails && params.page >= 3);
    // t0: 2026-11-23T10:00:00Z
    const { t0, sweeper, worker, held, heldConfig } = await holdOneStaleArchive(bench, { events });
    const run = (at: number) => sweepAt(bench, sweeper, at);

    // Page views every 5 seconds from 10:20 to 12:00, read by the sweeper at 12:00.
    bench.api.sandbox.addEvents(
      Array.from({ length: 1_200 }, (_, i) => ({ timestamp: t0 + 20 * MIN + i * 5_000, name: 'page_view' })),
    );
    expect((await run(t0 + 2 * HOUR)).stop).toBe('done');
    // Then a mobile client's batch arrives, an hour late: the held config is in use again. It is
    // listed among the events of 11:30, a few pages below where the sweeper's walk stops now.
    bench.api.sandbox.addEvents([
      { timestamp: t0 + 90 * MIN, name: 'config_exposure', metadata: { config: heldConfig } },
    ]);
    // From now on the late walk fails on every run; the sweeper's own walk reads on time.
    lateFails = true;
    const nextDay = Date.parse('2026-11-24T00:00:30Z');
    const runs = [await run(t0 + 8 * HOUR), await run(nextDay - MIN)];
    expect(runs.map((r) => ({ caughtUp: r.events.caughtUp, stop: r.stop }))).toEqual(
      Array(2).fill({ caughtUp: true, stop: 'error' }),
    );

    // The next day's first tick releases the held request: the worker must not archive it.
    bench.clock.now = new Date(nextDay);
    const tick = releaseTick(bench);
    expect((await releaseHeld(tick, new Date(nextDay))).released).toEqual([held?.requestId]);
    bench.clock.now = new Date(nextDay + 5_000);
    await bench.run(worker, await bench.receive());
    const [waiting] = await listHeld(bench.table);
    expect({
      archived: bench.api.sandbox.state.configs.get(heldConfig)?.archived ?? false,
      waiting: waiting?.requestId,
    }).toEqual({ archived: false, waiting: held?.requestId });
    expect(waiting?.reason).toContain('exposures logged late');
  });
});
