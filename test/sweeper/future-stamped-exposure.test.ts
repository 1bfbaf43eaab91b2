/**
 * Client SDKs stamp events. One exposure from a device whose clock runs years ahead was recorded
 * at its stamp: the config's last exposure lay in the future, so it was "exposed recently" on
 * every run (and the worker's re-check denied its archive) for as long as that clock was ahead,
 * however long the config then went unused. An event read now was logged no later than now: its
 * exposure is recorded at the run's time at most.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog, stateOf } from './harness.js';

const MIN = 60_000;
const exposure = (ts: number, config: string, source = 'web_sdk'): EventLike => ({
  timestamp: String(ts),
  name: 'config_exposure',
  source,
  metadata: { config },
});

describe('an exposure stamped years ahead by a device with a wrong clock', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('does not keep its config from ever being judged stale', async () => {
    const log: EventLike[] = [];
    // Sixty days of history: both configs in use daily.
    for (let t = NOW - 60 * DAY; t < NOW; t += DAY)
      log.push(exposure(t, 'web_banner'), exposure(t, 'old_promo'));
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: {
        staleConfigs: {
          configs: ['old_promo'],
          staleAfterDays: 30,
          graceDays: 0,
          maxPerRun: 5,
          dryRun: false,
        },
      },
    });
    const run = (at: number) =>
      makeSweeper(rig, state, { policy, events: sortedLog(() => log), clock: () => at, pageSize: 1000 }).run({
        now: new Date(at),
        remainingMs: 60_000,
      });
    // The last use of old_promo, from a device whose clock is ten years ahead.
    log.push(exposure(NOW + 3650 * DAY, 'old_promo', 'bad-clock-device'));
    await run(NOW);
    // Then 40 days of web_banner alone; old_promo is not used any more.
    let firstQueued: number | undefined;
    for (let d = 1; d <= 40 && firstQueued === undefined; d++) {
      log.push(exposure(NOW + d * DAY - MIN, 'web_banner'));
      if ((await run(NOW + d * DAY)).stale.queued.includes('old_promo')) firstQueued = d;
    }
    const { lastSeen } = await stateOf(state.table);
    const archives = (await drainQueue(rig, state.queueUrl)).map((b) => b.configId);
    // Recorded at the run that read it: stale 30 days on, like any config last used then.
    expect({ firstQueued, archives, lastSeen: lastSeen.get('old_promo') }).toEqual({
      firstQueued: 30,
      archives: ['old_promo'],
      lastSeen: NOW,
    });
  });
});
