/**
 * With `discover` on, each form of a name the SDKs log is watched on its own: the web app logs
 * `Promo_Banner`, the Android app `promo_banner`. The platform evaluates names whatever their
 * case, so they are one config, but once unused it was judged stale twice and two archives were
 * queued: two posts in the channel, two units of `maxPerDay`, two of `maxPerRun`. One archive is
 * asked for per name (case folded): the form listed in `configs` when one is (the release
 * manager typed it), else the form watched first, else the first in code-unit order; an ask
 * already made in the current episode keeps its form. The other forms are skipped as the same
 * config.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure } from './events.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog } from './harness.js';

const HOUR = 3_600_000;

const discovering = (configs: string[]) =>
  parsePolicy({
    version: 1,
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      staleConfigs: {
        configs,
        discover: true,
        staleAfterDays: 30,
        graceDays: 0,
        maxPerRun: 5,
        dryRun: false,
      },
    },
  });

describe('a config logged under two forms of its name', () => {
  const rig = rigForTests({ eventCount: 10 });
  // Sixty days of daily traffic; both apps exposed the banner until 45 days ago.
  const log: EventLike[] = Array.from({ length: 60 }, (_, i) => [
    exposure(NOW - (60 - i) * DAY + HOUR, 'cfg_busy'),
    ...(60 - i >= 45
      ? [
          exposure(NOW - (60 - i) * DAY + 2 * HOUR, 'promo_banner'),
          exposure(NOW - (60 - i) * DAY + 3 * HOUR, 'Promo_Banner'),
        ]
      : []),
  ]).flat();
  const runAt = (state: Awaited<ReturnType<typeof freshState>>, at: number, configs: string[] = []) =>
    makeSweeper(rig, state, {
      policy: discovering(configs),
      events: sortedLog(() => log.filter((e) => Number(e.timestamp) <= at)),
      clock: () => at,
      pageSize: 1000,
    }).run({ now: new Date(at), remainingMs: 60_000 });

  it('is asked to be archived once, run after run', async () => {
    const state = await freshState(rig);
    const first = await runAt(state, NOW);
    const second = await runAt(state, NOW + HOUR);
    const archives = (await drainQueue(rig, state.queueUrl)).map((b) => b.configId);
    expect({
      archives,
      queued: [first.stale.queued, second.stale.queued],
      skipped: first.stale.skipped.map((k) => [k.configId, k.reason]),
    }).toEqual({
      archives: ['Promo_Banner'],
      queued: [['Promo_Banner'], []],
      skipped: [['promo_banner', 'same config']],
    });
  });

  it('archives the form the policy lists', async () => {
    const state = await freshState(rig);
    const summary = await runAt(state, NOW, ['promo_banner']);
    const archives = (await drainQueue(rig, state.queueUrl)).map((b) => b.configId);
    expect({ archives, queued: summary.stale.queued }).toEqual({
      archives: ['promo_banner'],
      queued: ['promo_banner'],
    });
  });
});
