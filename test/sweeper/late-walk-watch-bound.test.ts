/**
 * With `discover`, a config is watched while the bounded last-seen index keeps its entry: the
 * sweeper's walk watches no id whose entry was not kept, and forgets the ids whose entries were
 * evicted (ce7f23f, aa4b7f2), so a client logging user ids as config ids cannot grow the watch set
 * past the index. The late-exposure walk, 6 hours behind, reads the same events again, and put on
 * the watch set every id it found that was not watched: the ids the bound had dropped, hundreds
 * written back to the table in every run, judged, then deleted again at the start of the next.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { freshState, makeSweeper, NOW, rigForTests, sortedLog, stateOf } from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const exposure = (config: string, at: number): EventLike => ({
  timestamp: String(at),
  name: 'config_exposure',
  metadata: { config },
});

describe('the late-exposure walk and the bounded watch set', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('watches no id whose last-seen entry the index does not keep', async () => {
    const state = await freshState(rig);
    // A client logging user ids at the config path: 1,000 of them in the hour before NOW.
    const log: EventLike[] = [];
    for (let i = 0; i < 1_000; i++) log.push(exposure(`user-${i}`, NOW - HOUR + i * 3_000));
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { staleConfigs: { discover: true, staleAfterDays: 30, graceDays: 0, dryRun: true } },
    });
    const sweep = (at: number) =>
      makeSweeper(rig, state, {
        policy,
        events: sortedLog(() => log),
        clock: () => at,
        pageSize: 100,
        lastSeenMaxIds: 100,
      }).run({ now: new Date(at), remainingMs: 10 * 60_000 });

    const first = await sweep(NOW);
    expect(first.watch).toEqual({ size: 100, added: 100, forgotten: 0 });
    // Seven hours on, the late walk has read the hour of the flood again.
    const second = await sweep(NOW + 7 * HOUR);
    const { watch, lastSeen } = await stateOf(state.table);
    const third = await sweep(NOW + 7 * HOUR + 15 * MIN);
    expect({
      judged: second.stale.judged,
      watched: watch.size,
      unindexed: [...watch.keys()].filter((id) => !lastSeen.has(id)).length,
      forgottenNext: third.watch.forgotten,
    }).toEqual({ judged: true, watched: 100, unindexed: 0, forgottenNext: 0 });
  });
});
