/**
 * Client SDKs batch and retry, and the platform keeps an event at the time the client stamped:
 * one that reaches the log later than the sweeper's lookback (15 minutes behind the newest event
 * read) lands behind the cursor and was never read. A config used only by such a client (say a
 * mobile app that sends its exposures an hour late) recorded no exposure and was judged stale and
 * queued for archiving while in use. Now a second walk of the log, `LATE_EXPOSURE_BOUND_MS`
 * behind the run's time, records the exposures logged up to that late.
 */
import { describe, expect, it } from 'vitest';
import { LATE_EXPOSURE_BOUND_MS } from '../../src/sweeper/late-exposures.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure } from './events.js';
import {
  DAY,
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  rigForTests,
  sortedLog,
  staleAfterADayPolicy,
  stateOf,
} from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('an exposure logged late', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('is recorded, so a config only a late client uses is not archived', async () => {
    const state = await freshState(rig);
    const policy = staleAfterADayPolicy('mobile_only');
    // Three days of history: a web config and the mobile app's config in use every hour; the
    // mobile app's exposures reach the log two hours after it stamped them.
    const log: EventLike[] = [];
    for (let t = NOW - 3 * DAY; t < NOW; t += HOUR) log.push(exposure(t, 'web_banner'));
    for (let t = NOW - 3 * DAY; t <= NOW - 2 * HOUR; t += HOUR) log.push(exposure(t, 'mobile_only'));
    const sweeper = makeSweeper(rig, state, { policy, events: sortedLog(() => log), clock: () => NOW });

    // Hourly runs for two days: the web config's exposures arrive on time, the mobile app's an
    // two hours late, behind events already read.
    const queued: string[] = [];
    for (let t = NOW; t <= NOW + 2 * DAY; t += HOUR) {
      log.push(exposure(t - MIN, 'web_banner'));
      if (t > NOW) log.push(exposure(t - 2 * HOUR, 'mobile_only'));
      const summary = await sweeper.run({ now: new Date(t), remainingMs: 60_000 });
      expect(summary.partial).toBe(false);
      queued.push(...summary.stale.queued);
    }
    expect(queued).toEqual([]);
    expect(await drainQueue(rig, state.queueUrl)).toEqual([]);
    const { lastSeen } = await stateOf(state.table);
    // Recorded within the bound, behind the run's time.
    expect(lastSeen.get('mobile_only')).toBeGreaterThanOrEqual(
      NOW + 2 * DAY - LATE_EXPOSURE_BOUND_MS - 2 * HOUR,
    );
  });
});
