/**
 * Observation of exposures counts from when the log's oldest events happened, by timestamps
 * client SDKs write. It used to take the oldest timestamp read: one event from a device whose
 * clock was reset (stamped in 2000) made the sweeper believe it had observed exposures for 26
 * years, so "observation too short" no longer protected a config whose last use lay before the
 * log's real start, and it was archived while in use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, type Rig, startRig } from './harness.js';

function source(log: () => EventLike[]): EventsSource {
  return {
    async list({ page, limit }) {
      const sorted = [...log()].sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
      const data = sorted.slice((page - 1) * limit, page * limit);
      return { data, pagination: { itemsPerPage: limit, pageNumber: page, totalItems: sorted.length } };
    },
  };
}

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

  it('does not count as observation, so a config is not archived after 13 days of real observation', async () => {
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
      event(NOW - 5 * DAY),
      event(NOW - 2 * DAY),
    ];
    const run = (at: number) =>
      makeSweeper(rig, state, { policy, events: source(() => log), clock: () => at, pageSize: 1000 }).run({
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
  });
});
