/**
 * A late copy of a scheduled invocation: Lambda's async queue retries a throttled or failed
 * delivery of the schedule's event (up to its maximum event age), and an operator's test event
 * names a time of its own; either way the handler takes `event.time` as the run's "now", and a run
 * older than one that already ran may start after it. Its horizon (its time plus the skew
 * allowance) then lies behind the stored cursor's boundary, which the walk takes for a cursor
 * poisoned by a future-stamped event: it read the whole log again from its start (O(history),
 * every event handed to the rules again, their caps spent, "not queued" notices posted), and
 * wrote the cursor, `caughtUpAt` and the read-up-to back to its older time.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { READ_UP_TO_KEY, readCursor } from '../../src/state/sweep-cursor.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  APPROVE_CANARY_RULE,
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  rigForTests,
  sortedLog,
} from './harness.js';

const MIN = 60_000;

describe('a late copy of a scheduled sweeper invocation', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('runs after a newer run without re-reading the log or moving its state back', async () => {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: {
        eventRules: [APPROVE_CANARY_RULE],
        staleConfigs: { configs: ['idle'], discover: true, dryRun: true },
      },
    });
    // Release checks, one a minute, for 8 hours before NOW.
    const log: EventLike[] = [];
    let n = 0;
    const logChecks = (from: number, to: number) => {
      for (let t = from; t < to; t += MIN)
        log.push({
          timestamp: String(t),
          name: 'release_checks_passed',
          metadata: { triggerID: `trg_${n}`, phaseID: `ph_${n++}` },
        });
    };
    logChecks(NOW - 8 * 60 * MIN, NOW);
    let clockNow = NOW;
    const sweeper = makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => log),
      clock: () => clockNow,
      pageSize: 100,
    });
    const handler = sweeperHandler(sweeper);
    const context = { getRemainingTimeInMillis: () => 60_000 };
    const invoke = (scheduled: number, wallClock: number) => {
      clockNow = wallClock;
      return handler({ time: new Date(scheduled).toISOString() }, context);
    };
    const readUpTo = async () =>
      (
        await rig.emulators.dynamo.send(
          new GetItemCommand({ TableName: state.table.tableName, Key: READ_UP_TO_KEY }),
        )
      ).Item?.at?.N;

    await invoke(NOW, NOW);
    logChecks(NOW, NOW + 60 * MIN);
    // The 04:00 run.
    const newer = await invoke(NOW + 60 * MIN, NOW + 60 * MIN);
    expect(newer.events.caughtUp).toBe(true);
    await drainQueue(rig, state.queueUrl);
    const before = { cursor: await readCursor(state.table), readUpTo: await readUpTo() };

    // The 03:30 invocation, delivered late: it starts at 04:01 with the time 03:30.
    const copy = await invoke(NOW + 30 * MIN, NOW + 61 * MIN);

    // Nothing new was logged since the 04:00 run: nothing is handed to the rules again.
    expect(copy.events.newEvents).toBe(0);
    expect(copy.rules.enqueueCapped).toBe(0);
    expect(await drainQueue(rig, state.queueUrl)).toEqual([]);
    // And what the newer run recorded stands.
    const after = await readCursor(state.table);
    expect(after?.boundaryTs).toBe(before.cursor?.boundaryTs);
    expect(after?.caughtUpAt).toBe(before.cursor?.caughtUpAt);
    expect(await readUpTo()).toBe(before.readUpTo);
  });
});
