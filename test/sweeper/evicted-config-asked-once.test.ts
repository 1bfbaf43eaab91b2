/**
 * Review s28: an evicted config counts as last seen at the index's watermark (3b912a0), and the
 * archive's request id carries that last exposure: it is how the sweep knows it asked already in
 * this staleness episode ('queued earlier'). The watermark rises as more ids are evicted, with no
 * exposure of the config at all: each rise made a new request id, so a stale config whose archive
 * was still waiting (held over maxPerDay, say, or asked in the channel) was asked for again, and
 * again on each rise: two archive requests (two questions, two "Done") for one config.
 * Clocks are injected; nothing depends on the machine's.
 */
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { DAY, drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog } from './harness.js';

const HOUR = 3_600_000;
const exposure = (config: string, at: number): EventLike => ({
  timestamp: String(at),
  name: 'config_exposure',
  metadata: { config },
});

const rig = rigForTests({ eventCount: 10 });

it('a stale config whose archive still waits is not asked for again when the watermark rises', async () => {
  const state = await freshState(rig);
  const log: EventLike[] = [
    exposure('cfg_x', NOW - 50 * DAY),
    // Ids that are no config (a client logging user ids), then a config in daily use.
    exposure('user-1', NOW - 45 * DAY),
    exposure('user-2', NOW - 40 * DAY),
    exposure('user-3', NOW - 38 * DAY),
    ...Array.from({ length: 55 }, (_, i) => exposure('cfg_busy', NOW - 55 * DAY + i * DAY + HOUR)),
  ];
  const policy = parsePolicy({
    version: 1,
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      staleConfigs: { configs: ['cfg_x'], staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
    },
  });
  const run = (at: number) =>
    makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => log),
      clock: () => at,
      pageSize: 1000,
      lastSeenMaxIds: 3,
    }).run({ now: new Date(at), remainingMs: 60_000 });
  const archives = async () =>
    (await drainQueue(rig, state.queueUrl)).filter((b) => b.action === 'archive_config');

  const first = await run(NOW);
  // cfg_x and user-1 are evicted: cfg_x counts as last seen 45 days ago, and is asked for once.
  expect(first.lastSeen.evictedUpTo).toBe(new Date(NOW - 45 * DAY).toISOString());
  const asked = await archives();
  expect(asked.map((b) => b.configId)).toEqual(['cfg_x']);

  // A day later, with the archive still waiting (no worker ended it), two more user ids are
  // logged: user-2 and user-3 are evicted, the watermark rises to 38 days ago. cfg_x has had no
  // exposure at all; it is as stale as it was and its archive is still on its way.
  log.push(exposure('user-4', NOW + 12 * HOUR), exposure('user-5', NOW + 13 * HOUR));
  const second = await run(NOW + DAY);
  expect(second.lastSeen.evictedUpTo).toBe(new Date(NOW - 38 * DAY).toISOString());
  expect((await archives()).map((b) => b.requestId)).toEqual([]);
  expect(second.stale.skipped).toContainEqual(
    expect.objectContaining({ configId: 'cfg_x', reason: 'queued earlier' }),
  );
});
