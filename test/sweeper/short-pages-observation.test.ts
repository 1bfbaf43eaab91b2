/**
 * A page served shorter than the page size it reports, in the middle of the log: the events it
 * lacks are never read (the poller moves past them), yet the run counted as read up to now and
 * judged staleness. Here the API caps `limit` at 100 but echoes the requested 1000 as
 * `itemsPerPage` (the spec names no maximum `limit` and does not say what `itemsPerPage` echoes):
 * the sweeper read 10% of the log, called the rest read, and queued the archive of a config
 * exposed every hour up to now. A read that skipped events is missing data: staleness must not be
 * judged from it (observation starts again after the events passed unread, as after expired ones).
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  cappedLog,
  DAY,
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  rigForTests,
  schedulePolicy,
} from './harness.js';

const HOUR = 3_600_000;

describe('a stale judgment after pages served short', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('does not archive a config exposed every hour up to now', async () => {
    const state = await freshState(rig);
    // 60 days of history: cfg_busy exposed every hour until a minute ago (1,440 events).
    const log: EventLike[] = [];
    for (let t = NOW - 60 * DAY; t < NOW; t += HOUR)
      log.push({ timestamp: String(t), name: 'config_exposure', metadata: { config: 'cfg_busy' } });
    const policy = schedulePolicy({
      staleConfigs: { configs: ['cfg_busy'], staleAfterDays: 30, graceDays: 0, dryRun: false },
    });
    const summary = await makeSweeper(rig, state, {
      policy,
      events: cappedLog(log),
      clock: () => NOW,
      pageSize: 1000,
    }).run({ now: new Date(NOW), remainingMs: 60_000 });
    const archives = (await drainQueue(rig, state.queueUrl)).filter((b) => b.action === 'archive_config');
    expect(archives.map((b) => b.configId)).toEqual([]);
    expect(summary.stale.stale).toEqual([]);
    expect(summary.stale.skipped.map((s) => s.reason)).toEqual(['observation too short']);
  });
});
