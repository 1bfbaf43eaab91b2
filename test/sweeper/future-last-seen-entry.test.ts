/**
 * Before c552182 an exposure was recorded at its stamp: a device clock ten years ahead left a
 * last-seen entry (or, once evicted, the index's eviction watermark) ten years ahead in the table.
 * The index keeps the maximum, so such an entry never came down: its config was "exposed
 * recently" on every run and never judged stale, and a watermark in the future made every config
 * without an entry of its own look just as used. An entry was written by the run that recorded
 * it (its `updatedAt`), so its exposure was logged by then: that is the latest it can count for.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { batchPut } from '../../src/state/dynamo-batch.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { DAY, drainQueue, freshState, NOW, rigForTests, sweepsOver } from './harness.js';

const TEN_YEARS = 3650 * DAY;
const exposure = (ts: number, config: string): EventLike => ({
  timestamp: String(ts),
  name: 'config_exposure',
  source: 'web_sdk',
  metadata: { config },
});

/** A last-seen item as a version before c552182 wrote it: the stamp, and the run that wrote it. */
const olderVersionItem = (sk: string, lastSeen: number, writtenAt: number) => ({
  pk: { S: 'lastseen' },
  sk: { S: sk },
  lastSeen: { N: String(lastSeen) },
  updatedAt: { S: new Date(writtenAt).toISOString() },
});

describe('a last-seen entry an older version stored years ahead', () => {
  const rig = rigForTests({ eventCount: 10 });

  // Sixty days of history: web_banner in use daily, old_promo until 40 days ago.
  const log: EventLike[] = [];
  for (let t = NOW - 60 * DAY; t < NOW; t += DAY) {
    log.push(exposure(t, 'web_banner'));
    if (t <= NOW - 40 * DAY) log.push(exposure(t, 'old_promo'));
  }
  const policy = parsePolicy({
    version: 1,
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      staleConfigs: { configs: ['old_promo'], staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
    },
  });

  it.each([
    ['its own entry', 'old_promo'],
    ['the eviction watermark', '#evicted up to'],
  ])('does not keep a config unused for 40 days from being archived (%s)', async (_, sk) => {
    const state = await freshState(rig);
    // Written 40 days ago, by the run that read old_promo's last use from a device ten years ahead.
    await batchPut(state.table, [olderVersionItem(sk, NOW - 40 * DAY + TEN_YEARS, NOW - 40 * DAY)]);
    const summary = await sweepsOver(rig, state, policy, () => log)(NOW);
    const archives = (await drainQueue(rig, state.queueUrl)).map((b) => b.configId);
    expect({ queued: summary.stale.queued, archives }).toEqual({
      queued: ['old_promo'],
      archives: ['old_promo'],
    });
  });
});
