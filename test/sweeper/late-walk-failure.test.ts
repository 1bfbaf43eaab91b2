/**
 * The late-exposure walk (src/sweeper/late-exposures.ts) gates the stale sweep: nothing is judged
 * stale until it has read up to 6 hours ago. When its reads fail, the run only logged a warning:
 * the summary said neither `partial` nor `stop: 'error'`, so the handler returned normally, the
 * SweeperErrors alarm stayed quiet, SweeperLag read 0 (the main walk caught up), and a walk that
 * fails on every run turned the stale sweep off for good with nobody told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import { freshState, makeSweeper, NOW, type Rig, sortedLog, startRig } from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('a late-exposure walk whose reads fail', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('fails the run like a failed read of the log, so the SweeperErrors alarm fires', async () => {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: {
        staleConfigs: { configs: ['idle'], staleAfterDays: 1, graceDays: 0, maxPerRun: 5, dryRun: false },
      },
    });
    // Two days of exposures, one a minute (100 a page, oldest first: the newest pages are 28 and 29).
    const log: EventLike[] = [];
    const exposure = (at: number): EventLike => ({
      timestamp: String(at),
      name: 'config_exposure',
      metadata: { config: 'busy' },
    });
    for (let t = NOW - 2 * 24 * HOUR; t < NOW; t += MIN) log.push(exposure(t));
    // Pages the platform fails to serve (say, a deep page timing out): only the late walk reads them.
    let failBelowPage = 0;
    const sorted = sortedLog(() => log);
    const events: EventsSource = {
      async list(params) {
        if (params.page < failBelowPage) throw new Error(`GET /events page ${params.page}: 503`);
        return sorted.list(params);
      },
    };
    let clockNow = NOW;
    const sweeper = makeSweeper(rig, state, { policy, events, clock: () => clockNow });
    const handler = sweeperHandler(sweeper);
    const context = { getRemainingTimeInMillis: () => 60_000 };

    // First run: everything reads.
    const first = await handler({ time: new Date(NOW).toISOString() }, context);
    expect(first.stop).not.toBe('error');

    // An hour later, the pages six hours back fail; the newest ones (the main walk's) do not.
    for (let t = NOW; t < NOW + HOUR; t += MIN) log.push(exposure(t));
    clockNow = NOW + HOUR;
    failBelowPage = 28;
    const second = handler({ time: new Date(NOW + HOUR).toISOString() }, context);
    await expect(second).rejects.toThrow(/503/);
  });
});
