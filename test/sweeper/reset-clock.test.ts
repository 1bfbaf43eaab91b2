/**
 * Observation of exposures counts from when the log's oldest events happened, by timestamps
 * client SDKs write. It used to take the oldest timestamp read: one event from a device whose
 * clock was reset (stamped in 2000) made the sweeper believe it had observed exposures for 26
 * years, so "observation too short" no longer protected a config whose last use lay before the
 * log's real start, and it was archived while in use. On a first page of two events the lower
 * median was the bad stamp still: observation takes the upper median.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, type Rig, sortedLog, startRig } from './harness.js';

const event = (ts: number, name = 'page_view', extra: Partial<EventLike> = {}): EventLike => ({
  timestamp: String(ts),
  name,
  ...extra,
});

describe('an event stamped long ago by a device with a reset clock', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it.each([
    ['a log of three events', [NOW - 5 * DAY, NOW - 2 * DAY]],
    ['a log of two events', [NOW - 5 * DAY]],
  ])(
    'does not count as observation, so a config is not archived after 13 days of real observation (%s)',
    async (_label, real) => {
      const state = await freshState(rig);
      const policy = parsePolicy({
        version: 1,
        actions: { archive_config: { requesters: ['schedule:*'] } },
        sweeper: {
          staleConfigs: { configs: ['cfg_monthly'], staleAfterDays: 30, graceDays: 7, dryRun: false },
        },
      });
      // The log's real history: five days. One event carries a timestamp from the year 2000.
      const log: EventLike[] = [
        event(Date.parse('2000-01-01T00:00:00.000Z'), 'app_open', { source: 'clock-reset-device' }),
        ...real.map((ts) => event(ts)),
      ];
      const run = (at: number) =>
        makeSweeper(rig, state, {
          policy,
          events: sortedLog(() => log),
          clock: () => at,
          pageSize: 1000,
        }).run({
          now: new Date(at),
          remainingMs: 60_000,
        });
      await run(NOW);
      log.push(event(NOW + 4 * DAY), event(NOW + 8 * DAY - 60_000));
      const later = await run(NOW + 8 * DAY);
      const archives = (await drainQueue(rig, state.queueUrl)).filter((b) => b.action === 'archive_config');
      expect(archives.map((a) => a.configId)).toEqual([]);
      expect(later.stale.skipped.map((k) => [k.configId, k.reason])).toEqual([
        ['cfg_monthly', 'observation too short'],
      ]);
    },
  );
});
