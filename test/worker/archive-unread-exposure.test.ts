/**
 * The worker re-checks a held stale-sweep archive against the `lastseen` index, but that index
 * only knows what the sweeper has read. When the sweeper cannot read the event log (here every
 * run after the judgment fails), an exposure logged meanwhile is never recorded: the worker must
 * not archive from missing data. It waits until the sweeper has read up to the last hour
 * (src/policy/stale-sweep.ts), and then the exposure denies the archive.
 */
import { describe, expect, it } from 'vitest';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import { failingEvents, holdOneStaleArchive, releaseTick, sweepAt } from './stale-archive.js';

const HOUR = 3_600_000;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a held stale-config archive while the sweeper cannot read the event log', () => {
  it('is not executed although an exposure logged since was never read', async () => {
    let readable = true;
    const events = failingEvents(bench, () => !readable);
    // t0: 2026-11-23T10:00:00Z
    const { t0, sweeper, worker, held, heldConfig } = await holdOneStaleArchive(bench, { events });

    // From now on every sweeper run fails to read; the held config is exposed two hours later.
    readable = false;
    bench.api.sandbox.addEvents([
      { timestamp: t0 + 2 * HOUR, name: 'config_exposure', metadata: { config: heldConfig } },
    ]);
    for (const at of [t0 + 2 * HOUR, t0 + 8 * HOUR]) {
      const run = await sweepAt(bench, sweeper, at);
      expect(run.stop).toBe('error');
    }

    const nextDay = new Date('2026-11-24T00:00:30Z');
    bench.clock.now = nextDay;
    const tick = releaseTick(bench);
    expect((await releaseHeld(tick, nextDay)).released).toEqual([held?.requestId]);
    bench.clock.now = new Date(nextDay.getTime() + 5_000);
    await bench.run(worker, await bench.receive());
    expect(bench.api.sandbox.state.configs.get(heldConfig)?.archived ?? false).toBe(false);
  });
});
