/**
 * The late walk (src/sweeper/late-exposures.ts) reads the log a second time, 6 hours behind, with
 * the same poller as the sweeper's walk; when it met a short page or a gap of expired events it
 * logged the poller's "observation of exposures starts again", which is only true of the
 * sweeper's walk (its cursor says when observation starts; the late walk's never does). An
 * operator reading that line after a quiet night would look for a reset that did not happen.
 * The late walk's lines now say what is true for it, and name the walk.
 */
import { describe, expect, it } from 'vitest';
import { LAST_SEEN_MAX_IDS } from '../../src/state/last-seen.js';
import { readLateExposures } from '../../src/sweeper/late-exposures.js';
import { emptySummary } from '../../src/sweeper/summary.js';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import {
  cappedLog,
  DAY,
  freshState,
  memoryLogger,
  NOW,
  rigForTests,
  schedulePolicy,
  sortedLog,
} from './harness.js';

const HOUR = 3_600_000;
const PASSED =
  'exposures logged late among the events passed unread are not recorded (when observation starts is the sweeper walk’s, unchanged)';

const policy = schedulePolicy({
  staleConfigs: { configs: ['cfg_busy'], staleAfterDays: 30, graceDays: 0, dryRun: true },
});

const exposure = (t: number): EventLike => ({
  timestamp: String(t),
  name: 'config_exposure',
  metadata: { config: 'cfg_busy' },
});

describe("the late walk's log lines", () => {
  const rig = rigForTests({ eventCount: 10 });

  async function lateWalk(
    events: EventsSource,
    now: number,
    table: Awaited<ReturnType<typeof freshState>>['table'],
  ) {
    const { logger, lines } = memoryLogger();
    await readLateExposures(
      { policy, events, table, pageSize: 1000, clock: () => now, logger },
      {
        now: new Date(now),
        summary: emptySummary(new Date(now)),
        deadline: now + 60_000,
        watch: new Map(),
        lastSeen: {
          entries: new Map(),
          evictedUpTo: null,
          evicted: 0,
          max: LAST_SEEN_MAX_IDS,
          complete: true,
        },
        latest: undefined,
      },
    );
    return lines.filter((l) => l.level === 'warn');
  }

  it('say, for a short page, that late exposures in the events it lacks are not recorded', async () => {
    const { table } = await freshState(rig);
    const log: EventLike[] = [];
    for (let t = NOW - 20 * DAY; t < NOW; t += HOUR) log.push(exposure(t));
    const warnings = await lateWalk(cappedLog(log), NOW, table);
    expect(warnings.length).toBeGreaterThan(0);
    for (const line of warnings) {
      expect(line.message).not.toContain('observation of exposures starts again');
      expect(line.walk).toBe('late-exposures');
    }
    expect(warnings[0]?.message).toBe(`GET /events served a short page; moving past it: ${PASSED}`);
  });

  it('say, for a gap of expired events, that late exposures among them are not recorded', async () => {
    const { table } = await freshState(rig);
    let log: EventLike[] = [];
    for (let t = NOW - 2 * DAY; t < NOW; t += HOUR) log.push(exposure(t));
    expect(
      await lateWalk(
        sortedLog(() => log),
        NOW,
        table,
      ),
    ).toEqual([]);
    // A day later, everything the late walk read has expired from the log.
    log = log.filter((e) => Number(e.timestamp) > NOW - 5 * HOUR);
    for (let t = NOW; t < NOW + DAY; t += HOUR) log.push(exposure(t));
    const warnings = await lateWalk(
      sortedLog(() => log),
      NOW + DAY,
      table,
    );
    expect(warnings.map((l) => [l.message, l.walk])).toEqual([
      [
        `the oldest event served is newer than the last one read: events may have expired unread; ${PASSED}`,
        'late-exposures',
      ],
    ]);
  });
});
