/**
 * Exposure events name the config as the app passed it to the SDK: the platform evaluates names
 * case-insensitively (an SDK that lower-cased names for checks broke exposure logging exactly
 * because of that), and a client may pad the name with whitespace. An exposure of
 * `New_Checkout_Copy` or ` new_checkout_copy ` is a use of the watched `new_checkout_copy`; the
 * sweeper recorded it under another key (or, with whitespace, not at all), found the watched
 * config unexposed for 30 days and queued its archive while it was in daily use.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure, pageView } from './events.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog } from './harness.js';

const HOUR = 3_600_000;

/** Sixty days of daily traffic (observation long enough), another config exposed daily. */
function history(): EventLike[] {
  return Array.from({ length: 60 }, (_, i) => [
    pageView(NOW - (60 - i) * DAY),
    exposure(NOW - (60 - i) * DAY + HOUR, 'cfg_busy'),
  ]).flat();
}

describe('an exposure naming a watched config in another form', () => {
  const rig = rigForTests({ eventCount: 10 });

  async function sweep(log: EventLike[], discover: boolean) {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: {
        staleConfigs: {
          configs: ['new_checkout_copy'],
          discover,
          staleAfterDays: 30,
          graceDays: 0,
          dryRun: false,
        },
      },
    });
    const sweeper = makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => log),
      clock: () => NOW,
      pageSize: 1000,
    });
    const summary = await sweeperHandler(sweeper)(
      { time: new Date(NOW).toISOString() },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    const archived = (await drainQueue(rig, state.queueUrl))
      .filter((b) => b.action === 'archive_config')
      .map((b) => b.configId);
    return { summary, archived };
  }

  it.each([
    ['in another case', 'New_Checkout_Copy', false],
    ['in another case, with discover on', 'NEW_CHECKOUT_COPY', true],
    ['with whitespace around it', ' new_checkout_copy\n', false],
    ['with whitespace around it, with discover on', '\tnew_checkout_copy ', true],
  ])('%s counts as a use: the config in daily use is not archived', async (_, written, discover) => {
    const log = [
      ...history(),
      // Seen in its own form long ago, then every day of the last week in the app's form.
      exposure(NOW - 45 * DAY, 'new_checkout_copy'),
      ...Array.from({ length: 7 }, (_, i) => exposure(NOW - (7 - i) * DAY + 2 * HOUR, written as string)),
    ];
    const { summary, archived } = await sweep(log, discover as boolean);
    expect(summary.stale.judged).toBe(true);
    expect(archived).not.toContain('new_checkout_copy');
    expect(summary.stale.stale).not.toContain('new_checkout_copy');
  });

  it('still archives the watched config when no form of it was exposed', async () => {
    const log = [...history(), exposure(NOW - 45 * DAY, 'new_checkout_copy')];
    const { archived } = await sweep(log, false);
    expect(archived).toEqual(['new_checkout_copy']);
  });
});
