/**
 * The worker decides a held stale-sweep archive again when it executes it, by the config's last
 * exposure (test/worker/archive-exposed-since.test.ts). The last-seen index is bounded: clients
 * logging ids that are no config can push the entry of a config exposed again out of it before
 * the held archive is released. The worker then read no exposure and archived a config in use;
 * it reads the index's eviction watermark with the entry, and counts the config as exposed then.
 */
import { describe, expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { loadLastSeen } from '../../src/state/last-seen.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import { holdOneStaleArchive, releaseTick } from './stale-archive.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a held stale-config archive whose config was exposed again', () => {
  it('is not executed after the config’s entry was evicted from the last-seen index', async () => {
    // Two configs unused for 40 days, one in use, and page views every two days (observation
    // counts from history without a silence of more than 3 days).
    const addLog = (t0: number) =>
      bench.api.sandbox.addEvents([
        { timestamp: t0 - 40 * DAY, name: 'config_exposure', metadata: { config: 'feature_tour' } },
        { timestamp: t0 - 40 * DAY + 1, name: 'config_exposure', metadata: { config: 'api_timeout_ms' } },
        { timestamp: t0 - 2 * HOUR, name: 'config_exposure', metadata: { config: 'checkout_banner' } },
        ...Array.from({ length: 21 }, (_, i) => ({
          timestamp: t0 - 41 * DAY + i * 2 * DAY,
          name: 'page_view',
        })),
      ]);
    // An index of 5 ids: the log's 3 configs and a few more (10,000 deployed).
    const extra = { lastSeenMaxIds: 5 };
    // The sweep at t0 (2026-11-23T10:00:00Z) queues both archives; the worker archives one, holds
    // the other (maxPerDay 1).
    const { t0, sweeper, worker, held, heldConfig } = await holdOneStaleArchive(bench, { addLog, extra });
    const tick = releaseTick(bench);

    // Two hours later the held config is in use again; right after, a client logs user ids as
    // config ids, and the index evicts the ids seen longest ago: the held config's among them.
    const t1 = t0 + 2 * HOUR;
    bench.clock.now = new Date(t1);
    bench.api.sandbox.addEvents([
      { timestamp: t1, name: 'config_exposure', metadata: { config: heldConfig } },
      ...[1, 2, 3, 4, 5, 6].map((i) => ({
        timestamp: t1 + i * 1000,
        name: 'config_exposure',
        metadata: { config: `user-${i}` },
      })),
    ]);
    await sweeper.run({ now: new Date(t1), remainingMs: 60_000 });
    expect((await loadLastSeen(bench.table)).has(heldConfig)).toBe(false);

    // The sweeper keeps reading (the worker holds an archive while it has not read the last hour).
    const nextDay = new Date('2026-11-24T00:00:30Z');
    bench.clock.now = new Date(nextDay.getTime() - 10 * 60_000);
    await sweeper.run({ now: bench.clock.now, remainingMs: 60_000 });
    // The next day's first tick releases the held request; the worker must not archive it.
    bench.clock.now = nextDay;
    expect((await releaseHeld(tick, nextDay)).released).toEqual([held?.requestId]);
    bench.clock.now = new Date(nextDay.getTime() + 5_000);
    await bench.run(worker, await bench.receive());

    const final = await readFinal(bench.table, held?.requestId as string);
    expect({
      archived: bench.api.sandbox.state.configs.get(heldConfig)?.archived ?? false,
      result: final?.result,
      rule: final?.rule,
    }).toEqual({ archived: false, result: 'denied', rule: 'sweeper.staleConfigs' });
  });
});
