/**
 * The worker re-checks a held stale-sweep archive against the `lastseen` index, but that index
 * only knows what the sweeper has read. When the sweeper cannot read the event log (here every
 * run after the judgment fails), an exposure logged meanwhile is never recorded: the worker must
 * not archive from missing data. It waits until the sweeper has read up to the last hour
 * (src/policy/stale-sweep.ts), and then the exposure denies the archive.
 */
import { describe, expect, it } from 'vitest';
import type { EventsSource } from '../../src/sweeper/types.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import {
  addStaleLog,
  benchEvents,
  benchSweeper,
  oneArchiveADayPolicy,
  releaseTick,
  sweepAndHoldOne,
} from './stale-archive.js';

const HOUR = 3_600_000;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a held stale-config archive while the sweeper cannot read the event log', () => {
  it('is not executed although an exposure logged since was never read', async () => {
    const t0 = bench.clock.now.getTime(); // 2026-11-23T10:00:00Z
    const policyInput = oneArchiveADayPolicy(bench);
    addStaleLog(bench, t0, ['feature_tour', 'api_timeout_ms']);
    const api = benchEvents(bench);
    let readable = true;
    const events: EventsSource = {
      list(params, options) {
        if (!readable) return Promise.reject(new Error('GET /events: 503'));
        return api.list(params, options);
      },
    };
    const sweeper = benchSweeper(bench, policyInput, events);
    const worker = bench.worker({ policy: policyInput });
    const { held, heldConfig } = await sweepAndHoldOne(bench, sweeper, worker, t0);

    // From now on every sweeper run fails to read; the held config is exposed two hours later.
    readable = false;
    bench.api.sandbox.addEvents([
      { timestamp: t0 + 2 * HOUR, name: 'config_exposure', metadata: { config: heldConfig } },
    ]);
    for (const at of [t0 + 2 * HOUR, t0 + 8 * HOUR]) {
      bench.clock.now = new Date(at);
      const run = await sweeper.run({ now: new Date(at), remainingMs: 60_000 });
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
