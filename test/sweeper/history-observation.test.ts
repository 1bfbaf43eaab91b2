/**
 * How much of the log's history counts as observed (src/sweeper/observation.ts). Client SDKs
 * write the timestamps that vouch for what was logged before our first read, so history counts
 * only from the start of its last stretch without a silence of more than three days, and only
 * when that stretch reaches our read; what is logged after our read is our own observation.
 * Each test states which archive the old rule (observation from the median stamp of the oldest
 * page) would have queued. Clocks are injected; nothing depends on the machine's.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { LONGEST_SILENCE_MS, observe } from '../../src/sweeper/observation.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure, pageView } from './events.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog } from './harness.js';

const HOUR = 3_600_000;
const STALE = { configs: ['cfg_x'], staleAfterDays: 30, graceDays: 0, dryRun: false };

/** A product in daily use from `from` to `to` (days from NOW): a page view and an exposure of cfg_busy each day. */
const daily = (from: number, to: number): EventLike[] =>
  Array.from({ length: to - from + 1 }, (_, i) => [
    pageView(NOW + (from + i) * DAY),
    exposure(NOW + (from + i) * DAY + HOUR, 'cfg_busy'),
  ]).flat();

describe('history counted as observation', () => {
  const rig = rigForTests({ eventCount: 10 });

  async function runner(log: EventLike[]) {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { staleConfigs: STALE },
    });
    const run = (at: number) =>
      makeSweeper(rig, state, { policy, events: sortedLog(() => log), clock: () => at, pageSize: 1000 }).run({
        now: new Date(at),
        remainingMs: 60_000,
      });
    const archived = async () =>
      (await drainQueue(rig, state.queueUrl))
        .filter((b) => b.action === 'archive_config')
        .map((b) => b.configId);
    return { run, archived };
  }

  it('a session from a device whose clock was reset does not count as decades of observation', async () => {
    // Five days of real history, and a session of 40 events stamped in 2000: the log's oldest page.
    const reset = Date.parse('2000-01-01T00:00:00.000Z');
    const log = [
      ...Array.from({ length: 40 }, (_, i) => ({
        ...pageView(reset + i * 1000),
        source: 'clock-reset-device',
      })),
      ...daily(-5, -1),
    ];
    const { run, archived } = await runner(log);
    await run(NOW);
    log.push(...daily(0, 8));
    const later = await run(NOW + 8 * DAY + 2 * HOUR);
    // The old rule took the session's stamp for the log's start: cfg_x, never seen in the 13 days
    // actually logged (it may be used monthly), was queued.
    expect(await archived()).toEqual([]);
    expect(later.stale.skipped).toContainEqual({
      configId: 'cfg_x',
      reason: 'observation too short',
      detail: 'exposures observed for 13 of 30 days',
    });
  });

  it('history that ends long before our first read does not count', async () => {
    // Fifty days of history, then ten silent days (exposures lost, or the log cut) before our read.
    const log = [exposure(NOW - 55 * DAY, 'cfg_x'), ...daily(-60, -10)];
    const { run, archived } = await runner(log);
    await run(NOW);
    log.push(...daily(1, 25));
    const later = await run(NOW + 25 * DAY + 2 * HOUR);
    expect(await archived()).toEqual([]); // the old rule: cfg_x, 80 days unseen in "85 days" observed
    expect(later.stale.skipped).toContainEqual({
      configId: 'cfg_x',
      reason: 'observation too short',
      detail: 'exposures observed for 25 of 30 days',
    });
  });

  it('a silence inside the history starts observation after it', async () => {
    const log = [exposure(NOW - 50 * DAY, 'cfg_x'), ...daily(-60, -40), ...daily(-20, -1)];
    const { run, archived } = await runner(log);
    await run(NOW);
    log.push(...daily(0, 5));
    const later = await run(NOW + 5 * DAY + 2 * HOUR);
    expect(await archived()).toEqual([]); // the old rule: cfg_x, observed "65 days"
    expect(later.stale.skipped).toContainEqual({
      configId: 'cfg_x',
      reason: 'observation too short',
      detail: 'exposures observed for 25 of 30 days',
    });
  });

  it('a product used on weekdays only is observed through its weekends', async () => {
    // Two events each weekday, at 09:00 and 17:00 UTC: Friday 17:00 to Monday 09:00 is 64 hours.
    const midnight = NOW - (NOW % DAY);
    const log: EventLike[] = [exposure(midnight - 58 * DAY + 10 * HOUR, 'cfg_x')];
    for (let d = -60; d <= -1; d++) {
      const day = midnight + d * DAY;
      const weekday = new Date(day).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      log.push(pageView(day + 9 * HOUR), exposure(day + 17 * HOUR, 'cfg_busy'));
    }
    const { run, archived } = await runner(log);
    await run(NOW);
    expect(await archived()).toEqual(['cfg_x']);
  });

  it('a silence after our first read does not start observation again: we watched it', async () => {
    const log = [exposure(NOW - 35 * DAY, 'cfg_x'), ...daily(-40, -1)];
    const { run, archived } = await runner(log);
    await run(NOW);
    expect(await archived()).toEqual(['cfg_x']); // 35 days unseen in 40 days of history
    await run(NOW + 5 * DAY); // nothing logged for ten days
    log.push(...daily(10, 11));
    const later = await run(NOW + 11 * DAY + 2 * HOUR);
    // Still judged stale (asked again: no worker ended the first ask), not "observation too short".
    expect(later.stale).toMatchObject({ stale: ['cfg_x'], skipped: [] });
  });
});

describe('observe, event by event (the order a platform lists its log in)', () => {
  const firstRead = NOW + 5 * 60_000; // the first run's time plus the skew allowance
  const walkOver = (stamps: number[], present = firstRead) => {
    const walk = { observedSince: null as number | null, historyEnd: firstRead as number | null, present };
    let newest: number | null = null;
    for (const ts of stamps) {
      observe(walk, ts, newest);
      if (ts <= present && (newest === null || ts > newest)) newest = ts;
    }
    return walk;
  };

  it('listed by arrival, a reset device first: observation starts at the real history', () => {
    const reset = Date.parse('2000-01-01T00:00:00.000Z');
    const walk = walkOver([reset, reset + 1000, NOW - 3 * DAY, NOW - 2 * DAY, reset + 2000, NOW - DAY]);
    expect(walk.observedSince).toBe(NOW - 3 * DAY);
  });

  it('a stamp past the run (a clock ahead) neither ends the history nor starts observation', () => {
    const walk = walkOver([NOW + 30 * DAY, NOW - 2 * DAY, NOW - DAY]);
    expect(walk).toMatchObject({ observedSince: NOW - 2 * DAY, historyEnd: firstRead });
  });

  it('the first event after the history ends it, starting observation at our read when the history fell silent before it', () => {
    const nextRun = NOW + DAY + 5 * 60_000;
    const reached = walkOver([NOW - 3 * DAY, NOW - DAY, NOW + HOUR], nextRun);
    expect(reached).toMatchObject({ observedSince: NOW - 3 * DAY, historyEnd: null });
    const lastBefore = firstRead - LONGEST_SILENCE_MS - 1;
    const silent = walkOver([lastBefore - DAY, lastBefore, NOW + HOUR], nextRun);
    expect(silent).toMatchObject({ observedSince: firstRead, historyEnd: null });
  });
});
