/**
 * Exposures recorded under another form of a watched config's name (the platform evaluates names
 * whatever their case), through the whole sweeper run:
 * - A config listed in `staleConfigs.configs` after its exposures were recorded under another form
 *   (the app passes `New_Checkout_Copy`) had no last-seen entry of its own: the flush folds forms
 *   only for the exposures it reads, so the index's `New_Checkout_Copy` entry (exposed 5 days ago)
 *   was never taken for the newly listed `new_checkout_copy`, which was judged unexposed for the
 *   whole observation and archived.
 * - The app exposes `STRASSE_BANNER` daily; the release manager listed `straße_banner`. Lower case
 *   kept them apart (`strasse_banner`, `straße_banner`), so the listed config looked unexposed and
 *   was archived in daily use. The fold (src/util/config-name.ts) joins them, as a full case fold does.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure, pageView } from './events.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog } from './harness.js';

const HOUR = 3_600_000;

const policyListing = (configs: string[]) =>
  parsePolicy({
    version: 1,
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      staleConfigs: { configs, discover: false, staleAfterDays: 30, graceDays: 0, dryRun: false },
    },
  });

describe('exposures recorded under another form of a watched name', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('counts the other form’s recorded exposure when listed later: the config used 5 days ago is not archived', async () => {
    const state = await freshState(rig);
    // Sixty days of daily traffic; the app exposes `New_Checkout_Copy` daily until 5 days ago.
    const log: EventLike[] = Array.from({ length: 60 }, (_, i) => [
      pageView(NOW - (60 - i) * DAY),
      exposure(NOW - (60 - i) * DAY + HOUR, 'cfg_busy'),
      ...(60 - i >= 5 ? [exposure(NOW - (60 - i) * DAY + 2 * HOUR, 'New_Checkout_Copy')] : []),
    ]).flat();
    const runAt = async (at: number, configs: string[]) =>
      sweeperHandler(
        makeSweeper(rig, state, {
          policy: policyListing(configs),
          events: sortedLog(() => log.filter((e) => Number(e.timestamp) <= at)),
          clock: () => at,
          pageSize: 1000,
        }),
      )({ time: new Date(at).toISOString() }, { getRemainingTimeInMillis: () => 60_000 });

    // Before the release manager lists the config: only cfg_busy is judged.
    await runAt(NOW - 2 * DAY, ['cfg_busy']);
    // Then `new_checkout_copy` is listed (no grace): its last use, 5 days ago, was recorded.
    const summary = await runAt(NOW, ['cfg_busy', 'new_checkout_copy']);
    expect(summary.stale.judged).toBe(true);
    const archived = (await drainQueue(rig, state.queueUrl))
      .filter((b) => b.action === 'archive_config')
      .map((b) => b.configId);
    expect(archived).not.toContain('new_checkout_copy');
    expect(summary.stale.stale).not.toContain('new_checkout_copy');
  });

  it('counts the exposures of STRASSE_BANNER for straße_banner, and archives only the unused config', async () => {
    const state = await freshState(rig);
    const log: EventLike[] = Array.from({ length: 60 }, (_, i) => [
      pageView(NOW - (60 - i) * DAY),
      exposure(NOW - (60 - i) * DAY + HOUR, 'cfg_busy'),
      exposure(NOW - (60 - i) * DAY + 2 * HOUR, 'STRASSE_BANNER'),
    ]).flat();
    const summary = await sweeperHandler(
      makeSweeper(rig, state, {
        policy: policyListing(['cfg_busy', 'straße_banner', 'cfg_unused']),
        events: sortedLog(() => log),
        clock: () => NOW,
        pageSize: 1000,
      }),
    )({ time: new Date(NOW).toISOString() }, { getRemainingTimeInMillis: () => 60_000 });

    expect(summary.stale.judged).toBe(true);
    expect(summary.stale.stale).not.toContain('straße_banner');
    const archived = (await drainQueue(rig, state.queueUrl))
      .filter((b) => b.action === 'archive_config')
      .map((b) => b.configId);
    expect(archived).toEqual(['cfg_unused']);
  });
});
