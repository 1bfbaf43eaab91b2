/**
 * Thousands of distinct events a client stamped with the same millisecond. The cursor used to
 * keep every identity of its boundary millisecond, unbounded: the item grew past DynamoDB's
 * 400 KB, the cursor write was refused, and every later run failed at the same place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { freshState, makeSweeper, NOW, type Rig, sortedLog, startRig, stateOf } from './harness.js';

const MIN = 60_000;

describe('thousands of distinct events stamped with one millisecond', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('do not make the cursor too large to save, so the sweeper reads past them', async () => {
    const state = await freshState(rig);
    const policy = parsePolicy({ version: 1, actions: {}, sweeper: {} });
    const log: EventLike[] = [];
    for (let i = 0; i < 7000; i++)
      log.push({ timestamp: String(NOW - 10 * MIN), name: 'page_view', userID: `u${i}` });
    log.push({ timestamp: String(NOW - 5 * MIN), name: 'purchase' });
    const run = (at: number) =>
      makeSweeper(rig, state, { policy, events: sortedLog(() => log), clock: () => at, pageSize: 1000 }).run({
        now: new Date(at),
        remainingMs: 120_000,
      });
    const outcomes: string[] = [];
    for (const at of [NOW, NOW + 15 * MIN]) {
      outcomes.push(
        await run(at).then(
          (s) => `ok caughtUp=${s.events.caughtUp}`,
          (e: Error) => `failed: ${e.message.slice(0, 100)}`,
        ),
      );
    }
    const { cursor } = await stateOf(state.table);
    expect({ outcomes, boundaryTs: cursor?.boundaryTs }).toEqual({
      outcomes: ['ok caughtUp=true', 'ok caughtUp=true'],
      boundaryTs: NOW - 5 * MIN,
    });
  });
});
