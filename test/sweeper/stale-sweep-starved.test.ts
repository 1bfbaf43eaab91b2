/**
 * The stale sweep judges only when the sweeper's walk has read the log up to now and the
 * late-exposure walk (src/sweeper/late-exposures.ts) up to 6 hours ago. The late walk reads after
 * the sweeper's, in what is left of the run's time: when the sweeper's walk needs most of each
 * run, the late walk reads less than is logged meanwhile and never catches up. Every run then
 * only says `partial` (stop: time) and "not judged"; SweeperLag reads 0 (the sweeper's walk is at
 * the head of the log), SweeperErrors sees no failure, SweeperNotRunning sees runs: nothing told an
 * operator that archiving of stale configs had stopped for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import { LATE_UNREAD } from '../../src/sweeper/late-exposures.js';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import { freshState, makeSweeper, NOW, type Rig, sortedLog, startRig } from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const SCHEDULE = 15 * MIN;
/** The StaleSweepNotJudging alarm's default threshold (context alarmStaleNotJudgedHours). */
const ALARM_THRESHOLD_S = 6 * 3600;

describe('a stale sweep the late-exposure walk keeps from judging, run after run', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('is reported as StaleJudgementAge, growing past the alarm threshold, while SweeperLag reads 0', async () => {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { staleConfigs: { configs: ['idle'], discover: true, dryRun: true } },
    });
    // Ten hours of exposures, one a minute; more are logged, one a minute, between runs.
    const log: EventLike[] = [];
    const exposure = (at: number): EventLike => ({
      timestamp: String(at),
      name: 'config_exposure',
      metadata: { config: 'busy' },
    });
    for (let t = NOW - 10 * HOUR; t < NOW; t += MIN) log.push(exposure(t));
    const sorted = sortedLog(() => log);
    // Each GET /events takes `perRequestMs` of the run's time (a slow platform, big pages).
    let clockNow = NOW;
    let perRequestMs = 0;
    const events: EventsSource = {
      async list(params) {
        clockNow += perRequestMs;
        return sorted.list(params);
      },
    };
    const ages: number[] = [];
    const lags: number[] = [];
    const metrics = createMetrics({
      service: 'sweeper',
      now: () => clockNow,
      sink: (line) => {
        const doc = JSON.parse(line) as Record<string, unknown>;
        if (typeof doc.StaleJudgementAge === 'number') ages.push(doc.StaleJudgementAge);
        if (typeof doc.SweeperLag === 'number') lags.push(doc.SweeperLag);
      },
    });
    const sweeper = makeSweeper(rig, state, { policy, events, clock: () => clockNow, pageSize: 10, metrics });
    const handler = sweeperHandler(sweeper);
    // A minute per invocation (the run stops 10 s before it).
    const context = { getRemainingTimeInMillis: () => 60_000 };
    const runAt = async (at: number) => {
      clockNow = at;
      return handler({ time: new Date(at).toISOString() }, context);
    };

    // The first run reads the whole log quickly and judges.
    const first = await runAt(NOW);
    expect(first.stale.judged).toBe(true);

    // From then on each request takes 12 s: the sweeper's walk needs most of each run, the late
    // walk gets a page or so, fewer events than are logged between two runs.
    perRequestMs = 12_000;
    const runs = 7 * 4;
    for (let run = 1; run <= runs; run++) {
      const at = NOW + run * SCHEDULE;
      for (let t = at - SCHEDULE; t < at; t += MIN) log.push(exposure(t));
      const summary = await runAt(at);
      // The sweeper's walk reads up to now every run; the stale sweep never judges again.
      expect(summary.events.caughtUp).toBe(true);
      expect(summary.stale).toMatchObject({ judged: false, notJudged: LATE_UNREAD });
      expect(summary.partial).toBe(true);
    }
    // SweeperLagging cannot tell: the sweeper's walk is never behind.
    expect(lags).toHaveLength(runs + 1);
    expect(lags.every((lag) => lag === 0)).toBe(true);

    // How long the stale sweep has gone without judging, from the run that last judged.
    expect(ages).toHaveLength(runs + 1);
    expect(ages[0]).toBe(0);
    expect(ages.slice(1)).toEqual(Array.from({ length: runs }, (_, i) => ((i + 1) * SCHEDULE) / 1000));
    expect(ages.at(-1)).toBeGreaterThan(ALARM_THRESHOLD_S);

    // Given the time (a faster platform), the late walk catches up, judges, and the age is 0 again.
    perRequestMs = 0;
    const recovered = await runAt(NOW + (runs + 1) * SCHEDULE);
    expect(recovered.stale.judged).toBe(true);
    expect(ages.at(-1)).toBe(0);
  }, 60_000);
});
