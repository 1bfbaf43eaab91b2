/**
 * A run at a far-future time (a console test event naming 2030, before the handler refused such
 * times: 7167ede) was the sweeper's first: it started its reading of the log "in 2030", so the
 * cursor said that the log's history ends and our observation of exposures begins in 2030, and
 * it watched every config it discovered "since 2030". The real runs after it go on (such a cursor
 * supersedes no run), but judged every config against those times: "exposures observed for
 * -1135 of 3 days", then "watched for -1135 of 2 days", on every run until 2030. A config unused
 * for forty days was never judged stale (nor ever archived) and nothing said why but those skips.
 * Such times now read as no later than the run's clock, once: the stale sweep judges as if the
 * sweeper had started reading then. The sweeper on the emulators, its clock injected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { readCursor } from '../../src/state/sweep-cursor.js';
import { loadWatchSet } from '../../src/state/watch.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure } from './events.js';
import { DAY, freshState, makeSweeper, NOW, type Rig, sortedLog, startRig } from './harness.js';

const HOUR = 3_600_000;
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');

/** Day `d` (from NOW) of a product in daily use: a page view and an exposure of cfg_busy. */
const day = (d: number): EventLike[] => [
  { timestamp: String(NOW + d * DAY - 2 * HOUR), name: 'page_view' },
  exposure(NOW + d * DAY - HOUR, 'cfg_busy'),
];

describe('the stale judgement after a run at a far-future time', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('counts observation and grace from the first real run, not from 2030', async () => {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { staleConfigs: { discover: true, staleAfterDays: 3, graceDays: 2, dryRun: true } },
    });
    // Forty days of daily use; cfg_idle was last exposed forty days ago.
    const log: EventLike[] = [exposure(NOW - 40 * DAY, 'cfg_idle')];
    for (let d = -39; d <= 0; d++) log.push(...day(d));
    let clockNow = NOW;
    const sweeper = makeSweeper(rig, state, { policy, events: sortedLog(() => log), clock: () => clockNow });

    // What the handler did with such an invocation before 7167ede: the first run, at its time.
    const future = await sweeper.run({ now: new Date(FUTURE), remainingMs: 60_000 });
    expect(future.events.caughtUp).toBe(true);
    expect((await loadWatchSet(state.table)).get('cfg_idle')?.watchedSince).toBe(FUTURE);

    // Daily scheduled runs from then on, the product in use every day.
    let last = future;
    for (let d = 1; d <= 4; d++) {
      log.push(...day(d));
      clockNow = NOW + d * DAY;
      last = await sweeper.run({ now: new Date(clockNow), remainingMs: 60_000 });
      expect(last.stop).toBe('done');
    }
    // Four days of real runs: three days observed, two watched since the first; cfg_idle is stale.
    expect(last.stale.wouldQueue, JSON.stringify(last.stale.skipped)).toEqual(['cfg_idle']);
    // The times are stored as read: no later than the first real run.
    const cursor = await readCursor(state.table);
    expect(cursor?.observedSince).toBeLessThanOrEqual(NOW + DAY);
    expect((await loadWatchSet(state.table)).get('cfg_idle')?.watchedSince).toBe(NOW + DAY);
  });
});
