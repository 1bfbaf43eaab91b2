/**
 * A new log of two events, one stamped in 2000 by a device with a reset clock: the lower median
 * of the two was the bad stamp, so observation still started in 2000 and a config in use was
 * archived. Observation takes the upper median.
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

describe('a reset-clock event on a first page of two events', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('does not count as observation, so a config is not archived after 13 days of real observation (a log of two events)', async () => {
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
