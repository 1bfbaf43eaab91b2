/**
 * A run at a far-future time (a console test event naming 2030, before the handler refused such
 * times: 7167ede) read the log and judged the stale sweep, so it wrote how far the log was read
 * (`readUpTo`) at 2030. The worker lets a held stale archive run only when the sweeper has read the
 * log up to the last hour; a `readUpTo` in 2030 passed that check on every day until then. Here the
 * sweeper cannot read the log after the judgement, the held config is exposed meanwhile, and the
 * worker archived it the next day from an index that never saw the exposure.
 */
import { describe, expect, it } from 'vitest';
import { writeReadUpTo } from '../../src/state/sweep-cursor.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import { failingEvents, holdOneStaleArchive, releaseTick, sweepAt } from './stale-archive.js';

const HOUR = 3_600_000;
const FUTURE = new Date('2030-01-01T00:00:00.000Z');

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a held stale-config archive after a run at a far-future time', () => {
  it('waits while the sweeper cannot read the log, although that run said it read up to 2030', async () => {
    let readable = true;
    const events = failingEvents(bench, () => !readable);
    // t0: 2026-11-23T10:00:00Z
    const { t0, sweeper, worker, held, heldConfig } = await holdOneStaleArchive(bench, { events });

    // An hour later an operator's test event named 2030: that run read the log "up to 2030".
    await writeReadUpTo(bench.table, FUTURE.getTime(), FUTURE);
    // From then on every sweeper run fails to read; the held config is exposed two hours later.
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
    expect((await releaseHeld(releaseTick(bench), nextDay)).released).toEqual([held?.requestId]);
    bench.clock.now = new Date(nextDay.getTime() + 5_000);
    await bench.run(worker, await bench.receive());
    expect(bench.api.sandbox.state.configs.get(heldConfig)?.archived ?? false).toBe(false);
    // It waits for the sweeper, saying why (the decision is audited and the request is held again).
    const lines = bench.logs.filter((l) => /ahead of the clock/.test(JSON.stringify(l)));
    expect(lines.length, 'a line saying the read-up-to time is ahead of the clock').toBeGreaterThan(0);
  });
});
