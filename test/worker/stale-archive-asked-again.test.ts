/**
 * A stale sweep's archive that the worker denied (a freeze, a requester not allowed yet, a limit
 * held past maxDeferHours...) stayed marked "queued earlier" for as long as the config's last
 * exposure did not change: the sweeper never asked again, even after the reason went away. Now a
 * denied archive is asked again (under a new request id) once the denial is a day old; one still
 * pending, or done, is not. End to end: the sweeper over the sandbox's events, the worker on real
 * SQS events, the sandbox's config.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readFinal } from '../../src/state/audit.js';
import { staleRequestId } from '../../src/sweeper/stale.js';
import { basePolicy, benchForEachTest } from './fixture.js';
import { addStaleLog, benchSweeper } from './stale-archive.js';

const HOUR = 3_600_000;

const bench = benchForEachTest({ sandbox: { eventCount: 0 } });

describe('a stale sweep archive the worker denied', () => {
  it('is asked again a day after the denial, and archived once the reason went away', async () => {
    const t0 = bench.clock.now.getTime();
    const [a, b] = ['feature_tour', 'api_timeout_ms'];
    const policyInput = (requesters: string[]): PolicyInput => ({
      ...basePolicy(bench.slack.origin),
      actions: { archive_config: { requesters } },
      sweeper: {
        staleConfigs: { configs: [a], staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
      },
    });
    addStaleLog(bench, t0, [a, b]);
    const sweeper = benchSweeper(bench, policyInput(['schedule:*']));
    const runAt = async (at: number) => {
      bench.clock.now = new Date(at);
      return sweeper.run({ now: new Date(at), remainingMs: 60_000 });
    };
    const work = async (requesters: string[]) => {
      const worker = bench.worker({ policy: policyInput(requesters) });
      for (const record of (await bench.receive()).Records) await bench.run(worker, { Records: [record] });
    };

    // Day 1: queued, and denied (the schedule is not an allowed requester yet).
    const first = await runAt(t0);
    expect(first.stale.queued).toEqual([a]);
    await work(['slack:U0ADMIN']);
    const firstId = staleRequestId(a, t0 - 40 * 24 * HOUR);
    expect((await readFinal(bench.table, firstId))?.result).toBe('denied');

    // The same day: not asked again (the reason rarely goes away within hours).
    const later = await runAt(t0 + HOUR);
    expect(later.stale.queued).toEqual([]);
    expect(later.stale.skipped).toContainEqual(
      expect.objectContaining({ configId: a, reason: 'denied earlier' }),
    );

    // The operator allows the schedule; a day after the denial the sweep asks again, and it is archived.
    const nextDay = await runAt(t0 + 25 * HOUR);
    expect(nextDay.stale.queued).toEqual([a]);
    await work(['schedule:*']);
    expect(bench.api.sandbox.state.configs.get(a)?.archived).toBe(true);

    // Done: not asked again.
    const after = await runAt(t0 + 50 * HOUR);
    expect(after.stale.queued).toEqual([]);
    expect(after.stale.skipped).toContainEqual(expect.objectContaining({ configId: a, reason: 'archived' }));
  });
});
