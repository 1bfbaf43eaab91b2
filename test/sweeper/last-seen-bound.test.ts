/**
 * Client SDKs write the config ids of exposure events: an integration that logs a user or request
 * id at `configIdFrom` names thousands of new ids a day. The last-seen index recorded every one,
 * forever, and every run read it whole into the sweeper's memory (384 MB): 200,000 ids cost a run
 * 136 MB and 6.5 s on the emulator, and runs grew until they timed out or ran out of memory and
 * the sweep stopped. Now it keeps at most LAST_SEEN_MAX_IDS ids, evicting those seen longest ago;
 * an evicted config counts as last seen at the newest time evicted, never earlier, so eviction
 * never makes a config in use look stale.
 */
import type { QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { LAST_SEEN_MAX_IDS, loadLastSeen } from '../../src/state/last-seen.js';
import type { StateTable } from '../../src/state/table.js';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  DAY,
  drainQueue,
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  rigForTests,
  sortedLog,
} from './harness.js';

const HOUR = 3_600_000;
const MIN = 60_000;

const exposure = (config: string, at: number): EventLike => ({
  timestamp: String(at),
  name: 'config_exposure',
  metadata: { config },
});

function stalePolicy(configs: string[]) {
  return parsePolicy({
    version: 1,
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      staleConfigs: { configs, staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
    },
  });
}

/** The table, counting the last-seen items its Query requests return. */
function counting(table: StateTable) {
  const read = { lastSeenItems: 0 };
  const client = {
    async send(command: Parameters<StateTable['client']['send']>[0]) {
      const out = await table.client.send(command as never);
      const input = command.input as { ExpressionAttributeValues?: Record<string, { S?: string }> };
      if (
        command.constructor.name === 'QueryCommand' &&
        input.ExpressionAttributeValues?.[':pk']?.S === 'lastseen'
      )
        read.lastSeenItems += (out as QueryCommandOutput).Items?.length ?? 0;
      return out;
    },
  } as StateTable['client'];
  return { table: { client, tableName: table.tableName }, read };
}

describe('the last-seen index, when clients log ids that are no config', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('keeps at most LAST_SEEN_MAX_IDS (10,000) ids, and a run reads no more than that', async () => {
    const state = await freshState(rig);
    const log: EventLike[] = [];
    // 12,000 user ids logged as config ids over 12 days, then 3,000 more.
    for (let i = 0; i < 12_000; i++) log.push(exposure(`user-${i}`, NOW - 12 * DAY + i * 80_000));
    const { table, read } = counting(state.table);
    const { logger, lines } = memoryLogger();
    const run = (at: number) =>
      makeSweeper(
        rig,
        { ...state, table },
        {
          policy: stalePolicy(['feature_tour']),
          events: sortedLog(() => log),
          clock: () => at,
          pageSize: 1000,
          logger,
        },
      ).run({ now: new Date(at), remainingMs: 10 * 60_000 });

    const first = await run(NOW);
    const storedAfterFirst = (await loadLastSeen(state.table)).size;
    for (let i = 0; i < 3_000; i++) log.push(exposure(`request-${i}`, NOW + i * 100));
    read.lastSeenItems = 0;
    const second = await run(NOW + 15 * MIN);
    const storedAfterSecond = (await loadLastSeen(state.table)).size;

    expect({
      storedAfterFirst,
      storedAfterSecond,
      trackedAfterSecond: second.lastSeen.tracked,
      evicted: [first.lastSeen.evicted, second.lastSeen.evicted],
    }).toEqual({
      storedAfterFirst: LAST_SEEN_MAX_IDS,
      storedAfterSecond: LAST_SEEN_MAX_IDS,
      trackedAfterSecond: LAST_SEEN_MAX_IDS,
      evicted: [2_000, 3_000],
    });
    // The second run's load: the index and its watermark (the late walk reads none of it again).
    expect(read.lastSeenItems).toBeLessThanOrEqual(LAST_SEEN_MAX_IDS + 2);
    // Operators are told: clients log ids no config has.
    const warnings = lines.filter(
      (l) => l.level === 'warn' && String(l.message).includes('last-seen index is at its bound'),
    );
    expect(warnings).toHaveLength(2);
  });

  it('never judges a config whose entry was evicted stale earlier than its own entry would', async () => {
    const state = await freshState(rig);
    // 60 days of one-off user ids every 2 hours (observation covers them), and a config in use:
    // `feature_tour`, exposed 20 days ago, well within staleAfterDays (30).
    const log: EventLike[] = [];
    for (let t = NOW - 60 * DAY, i = 0; t < NOW - HOUR; t += 2 * HOUR, i++)
      log.push(exposure(`user-${i}`, t));
    log.push(exposure('feature_tour', NOW - 20 * DAY));
    const sweep = (configs: string[], at: number) =>
      makeSweeper(rig, state, {
        policy: stalePolicy(configs),
        events: sortedLog(() => log),
        clock: () => at,
        pageSize: 1000,
        lastSeenMaxIds: 100,
      }).run({ now: new Date(at), remainingMs: 10 * 60_000 });

    await sweep([], NOW);
    // 100 ids seen in the last 8 days are kept: feature_tour's entry is evicted.
    const kept = await loadLastSeen(state.table);
    expect({ size: kept.size, featureTour: kept.get('feature_tour') }).toEqual({
      size: 100,
      featureTour: undefined,
    });

    // A release manager adds it to the configs the sweep judges. Counted from the start of
    // observation (60 days ago) it would be archived although exposed 20 days ago; counted
    // from the watermark (8 days ago) it is not stale.
    const summary = await sweep(['feature_tour'], NOW + 15 * MIN);
    const queued = (await drainQueue(rig, state.queueUrl)).map((b) => b.configId);
    expect({ judged: summary.stale.judged, stale: summary.stale.stale, queued }).toEqual({
      judged: true,
      stale: [],
      queued: [],
    });
  });

  it('forgets the discovered configs whose entries were evicted, so the watch set stays bounded too', async () => {
    const state = await freshState(rig);
    // discover: every id an exposure names is watched. 1,000 user ids logged as config ids,
    // then `feature_tour` (listed in the policy, but first seen in an exposure: discovered).
    const log: EventLike[] = [exposure('feature_tour', NOW - 10 * DAY)];
    for (let i = 0; i < 1_000; i++) log.push(exposure(`user-${i}`, NOW - 9 * DAY + i * 60_000));
    const policy = (configs: string[]) =>
      parsePolicy({
        version: 1,
        actions: { archive_config: { requesters: ['schedule:*'] } },
        sweeper: {
          staleConfigs: { configs, discover: true, staleAfterDays: 30, graceDays: 0, dryRun: false },
        },
      });
    const sweep = (configs: string[], at: number) =>
      makeSweeper(rig, state, {
        policy: policy(configs),
        events: sortedLog(() => log),
        clock: () => at,
        pageSize: 100,
        lastSeenMaxIds: 100,
      }).run({ now: new Date(at), remainingMs: 10 * 60_000 });

    const first = await sweep([], NOW);
    // Watched: the ids whose entries were kept when their events were flushed (feature_tour and the
    // 100 newest user ids); feature_tour's was evicted by a later flush: forgotten.
    expect(first.watch).toEqual({ size: 100, added: 101, forgotten: 1 });
    // Listed in the policy, a discovered config is kept although its entry is evicted.
    log.push(exposure('feature_tour', NOW - 8 * DAY + 1));
    log.push(...Array.from({ length: 200 }, (_, i) => exposure(`user-b${i}`, NOW - DAY + i * 60_000)));
    // Logged late, stamped before the eviction watermark: not recorded, so not watched either
    // (neither added nor forgotten on every run).
    log.push(exposure('user-late', NOW - 9 * DAY + 500 * 60_000));
    const second = await sweep(['feature_tour'], NOW + 15 * MIN);
    expect(second.watch.size).toBe(101);
    // Added: feature_tour (now from the policy) and the 100 newest of the 200; forgotten: the
    // first run's 100 user ids, evicted by the newer ones. user-late is neither.
    expect({ added: second.watch.added, forgotten: second.watch.forgotten }).toEqual({
      added: 101,
      forgotten: 100,
    });
  });
});
