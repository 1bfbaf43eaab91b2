/**
 * README: the late-exposure walk "starts at the bound when the sweep is turned on". It did only
 * the first time: turned off and on again, the walk resumed from the cursor it left behind, so
 * the first runs after the turn-on re-read everything logged while the sweep was off (months,
 * on a long pause), a page per request, before the stale sweep could judge again. Now a late
 * cursor left by an earlier recording episode (the sweep turned off and on, or its exposure
 * events changed: the one detection StaleJudgementAge counts by) is set aside, and the walk
 * starts at the bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { readCursor } from '../../src/state/sweep-cursor.js';
import { LATE_EXPOSURE_BOUND_MS } from '../../src/sweeper/late-exposures.js';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import { DAY, freshState, makeSweeper, NOW, type Rig, sortedLog, startRig } from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('the stale sweep turned off for months and on again', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('starts its late-exposure walk at the bound, not where it stopped months ago', async () => {
    const state = await freshState(rig);
    const staleConfigs = { configs: ['idle'], discover: true, dryRun: true };
    const on = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { staleConfigs },
    });
    const off = parsePolicy({ version: 1, actions: { archive_config: { requesters: ['schedule:*'] } } });
    const exposure = (at: number): EventLike => ({
      timestamp: String(at),
      name: 'config_exposure',
      metadata: { config: 'busy' },
    });
    const log: EventLike[] = [];
    const logUpTo = (from: number, to: number) => {
      for (let t = from; t < to; t += 10 * MIN) log.push(exposure(t));
    };
    logUpTo(NOW - DAY, NOW);
    // Every GET /events takes `perRequestMs` of the run's time; requests are counted.
    const sorted = sortedLog(() => log);
    let clockNow = NOW;
    let perRequestMs = 0;
    let requests = 0;
    const events: EventsSource = {
      async list(params) {
        requests++;
        clockNow += perRequestMs;
        return sorted.list(params);
      },
    };
    const sweeperWith = (policy: typeof on) =>
      makeSweeper(rig, state, { policy, events, clock: () => clockNow, pageSize: 50 });
    const runAt = (sweeper: ReturnType<typeof sweeperWith>, at: number) => {
      clockNow = at;
      return sweeper.run({ now: new Date(at), remainingMs: 60_000 });
    };

    // On: both walks catch up and the sweep judges.
    const first = await runAt(sweeperWith(on), NOW);
    expect(first.stale.judged).toBe(true);
    const lateBefore = await readCursor(state.table, 'late-exposures');
    expect(lateBefore?.boundaryTs).toBeLessThanOrEqual(NOW - LATE_EXPOSURE_BOUND_MS);

    // Off for 60 days: the sweeper's walk keeps reading the log (event rules), the late walk rests.
    const offUntil = NOW + 60 * DAY;
    logUpTo(NOW, offUntil);
    const whileOff = await runAt(sweeperWith(off), offUntil);
    expect(whileOff.events.caughtUp).toBe(true);

    // On again, on a platform where each request takes a second of the run's minute.
    const onAgain = offUntil + HOUR;
    logUpTo(offUntil, onAgain);
    perRequestMs = 1000;
    requests = 0;
    const turnedOn = await runAt(sweeperWith(on), onAgain);
    const lateRequests = requests - turnedOn.events.requests;
    // The late walk reads from the bound (a page or two and the steps back to it), not 60 days.
    expect(lateRequests).toBeLessThanOrEqual(5);
    expect(turnedOn.partial).toBe(false);
    expect(turnedOn.stale.judged).toBe(true);
    const lateAfter = await readCursor(state.table, 'late-exposures');
    expect(lateAfter?.boundaryTs).toBeGreaterThan(onAgain - LATE_EXPOSURE_BOUND_MS - HOUR);
  }, 60_000);
});
