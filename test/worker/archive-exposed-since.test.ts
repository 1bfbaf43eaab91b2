/**
 * Review: the stale sweep's archive request is a judgment made at `requestedAt` ("no exposure in
 * the last staleAfterDays"), but the worker may execute it much later: a request over
 * `maxPerDay` (or sent while the worker is paused) is held until the next day, up to
 * `maxDeferHours` (72 h by default). A config that was exposed again meanwhile — the sweeper
 * read and recorded the exposure — was still archived when the request was released: the
 * worker acted on a judgment its own state already contradicted.
 *
 * End to end: the sweeper reads the sandbox's events over HTTP and queues two archives; the
 * worker archives one and holds the other (maxPerDay 1); the held config is exposed again and
 * the sweeper records it; next day the release tick sends the request back to the worker.
 */
import { describe, expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { loadLastSeen } from '../../src/state/last-seen.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import { holdOneStaleArchive, releaseTick } from './stale-archive.js';

const HOUR = 3_600_000;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a stale-config archive held by the worker', () => {
  it('is not executed once the config has been exposed again', async () => {
    // The sweep at t0 (2026-11-23T10:00:00Z) finds both stale and queues both; the worker
    // archives one, holds the other.
    const { t0, sweeper, worker, held, heldConfig } = await holdOneStaleArchive(bench);
    const tick = releaseTick(bench);

    // Two hours later the held config is in use again, and the sweeper records the exposure.
    bench.clock.now = new Date(t0 + 2 * HOUR);
    bench.api.sandbox.addEvents([
      { timestamp: t0 + 2 * HOUR, name: 'config_exposure', metadata: { config: heldConfig } },
    ]);
    await sweeper.run({ now: new Date(t0 + 2 * HOUR), remainingMs: 60_000 });
    expect((await loadLastSeen(bench.table)).get(heldConfig)).toBe(t0 + 2 * HOUR);

    // The next day's first tick releases the held request; the worker must not archive it.
    const nextDay = new Date('2026-11-24T00:00:30Z');
    bench.clock.now = nextDay;
    expect((await releaseHeld(tick, nextDay)).released).toEqual([held?.requestId]);
    bench.clock.now = new Date(nextDay.getTime() + 5_000);
    await bench.run(worker, await bench.receive());

    const final = await readFinal(bench.table, held?.requestId as string);
    expect({
      archived: bench.api.sandbox.state.configs.get(heldConfig)?.archived ?? false,
      result: final?.result,
    }).toEqual({ archived: false, result: 'denied' });
    expect(final?.reason).toContain('exposed');
  });
});
