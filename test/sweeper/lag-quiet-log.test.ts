/**
 * SweeperLag is "how far behind the event log a run ended" and feeds the SweeperLagging alarm
 * (threshold: alarmSweeperLagPeriods × sweepSchedule, 2 × 15 min by default). A run that does
 * not read up to now reports the age of the newest event it has passed. On a quiet log (the
 * newest event hours old) one failed read, right after a run that read everything up to now,
 * reports hours of lag: SweeperLagging pages "more than 2 schedule periods behind the event log:
 * event rules act late and stale configs are not judged" although the sweeper was at the head of
 * the log one period earlier and no event has been logged since. The sweeper cannot be further
 * behind than the time since it last read up to now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import { canaryRulePolicy, freshState, makeSweeper, NOW, type Rig, sortedLog, startRig } from './harness.js';

const MIN = 60_000;
const SCHEDULE_MIN = 15;
/** The alarm's default threshold: two schedule periods. */
const ALARM_THRESHOLD_S = 2 * SCHEDULE_MIN * 60;

describe('SweeperLag after a failed run on a quiet log', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('is at most the time since the sweeper last read up to now, not the age of the newest event', async () => {
    const state = await freshState(rig);
    const policy = canaryRulePolicy({ staleConfigs: false });
    // The last event was logged three hours ago; nothing since.
    const log: EventLike[] = [
      { timestamp: String(NOW - 4 * 60 * MIN), name: 'anything' },
      { timestamp: String(NOW - 3 * 60 * MIN), name: 'anything else' },
    ];
    const quiet = sortedLog(() => log);
    const failing: EventsSource = {
      list: async () => {
        throw new Error('GET /events: 503');
      },
    };
    const lags: number[] = [];
    const run = (at: number, events: EventsSource) =>
      makeSweeper(rig, state, {
        policy,
        events,
        clock: () => at,
        pageSize: 1000,
        metrics: createMetrics({
          service: 'sweeper',
          now: () => at,
          sink: (line) => {
            const doc = JSON.parse(line) as Record<string, unknown>;
            if (typeof doc.SweeperLag === 'number') lags.push(doc.SweeperLag);
          },
        }),
      }).run({ now: new Date(at), remainingMs: 60_000 });

    const first = await run(NOW, quiet);
    expect(first.events.caughtUp).toBe(true);
    // The next scheduled run cannot reach the platform (SweeperErrors tells that).
    const second = await run(NOW + SCHEDULE_MIN * MIN, failing);
    expect(second.stop).toBe('error');

    expect(lags[0]).toBe(0);
    // Caught up 15 minutes ago, nothing logged since: at most 15 minutes behind, under the alarm.
    expect(lags[1] ?? 0).toBeLessThanOrEqual(SCHEDULE_MIN * 60);
    expect(lags[1] ?? 0).toBeLessThanOrEqual(ALARM_THRESHOLD_S);
  });
});
