/**
 * Review: `actions.archive_config.maxPerDay` caps archives a day. The worker takes the counter's
 * unit before calling the Console API and gives it back when the call fails transiently, but kept
 * it when the platform refused the archive (a 404: the config was deleted, as the stale sweep's
 * discovered ids often are): a call that archived nothing spent the day's archive, and the next
 * stale config, really unused, was held to the next day ("limit reached").
 *
 * End to end: the sweeper reads the sandbox's events over HTTP and queues two archives; the
 * worker runs the deleted config's first (404), then the other's.
 */
import { describe, expect, it } from 'vitest';
import { listHeld } from '../../src/state/held.js';
import { benchForFile } from './fixture.js';
import { addStaleLog, benchSweeper, oneArchiveADayPolicy } from './stale-archive.js';

const DAY = 86_400_000;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a stale archive the platform refused', () => {
  it('does not spend the daily archive cap', async () => {
    const t0 = bench.clock.now.getTime(); // 2026-11-23T10:00:00Z
    const policyInput = oneArchiveADayPolicy(bench); // maxPerDay 1
    addStaleLog(bench, t0, ['feature_tour', 'api_timeout_ms']);
    // A config clients used to log that no longer exists on the platform (deleted): unused longest.
    bench.api.sandbox.addEvents([
      { timestamp: t0 - 41 * DAY, name: 'config_exposure', metadata: { config: 'deleted_flag' } },
    ]);
    expect(bench.api.sandbox.state.configs.has('deleted_flag')).toBe(false);

    const sweeper = benchSweeper(bench, policyInput);
    const worker = bench.worker({ policy: policyInput });
    const run = await sweeper.run({ now: new Date(t0), remainingMs: 60_000 });
    expect(run.stale.queued.sort()).toEqual(['api_timeout_ms', 'deleted_flag', 'feature_tour']);

    const { Records } = await bench.receive();
    const of = (id: string) => Records.filter((r) => r.body.includes(`"configId":"${id}"`));
    // The deleted config's archive first (404), then feature_tour's.
    for (const record of [...of('deleted_flag'), ...of('feature_tour')])
      await bench.run(worker, { Records: [record] });

    expect({
      archived: bench.api.sandbox.state.configs.get('feature_tour')?.archived,
      held: (await listHeld(bench.table)).map((h) => h.why),
    }).toEqual({ archived: true, held: [] });
  });
});
