/**
 * An invocation naming a time far from the clock: a mistyped console test event, or a manual
 * invoke naming 2030. The handler took `event.time` as the run's "now", so it judged staleness
 * and dated its requests at that time, and wrote the cursor with that `updatedAt`: every real
 * scheduled run after it was "superseded" (a late copy of an older invocation, by bb9d228) and did
 * nothing until 2030. Now a run whose time is ahead of the clock, or further behind it than Lambda
 * keeps an event to deliver it late, is refused with an error naming both times (SweeperErrors),
 * writing nothing; and a cursor such a run wrote before supersedes no real run.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { readCursor } from '../../src/state/sweep-cursor.js';
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
const HOUR = 60 * MIN;
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');

describe('an invocation whose time is far from the clock', () => {
  const rig = rigForTests({ eventCount: 10 });

  /** A fresh state, a log of release checks, and the handler over a sweeper on an injected clock. */
  async function setup() {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { eventRules: [APPROVE_CANARY_RULE] },
    });
    const log: EventLike[] = [];
    let n = 0;
    const logChecks = (from: number, to: number) => {
      for (let t = from; t < to; t += 5 * MIN)
        log.push({
          timestamp: String(t),
          name: 'release_checks_passed',
          metadata: { triggerID: `trg_${n}`, phaseID: `ph_${n++}` },
        });
    };
    let clockNow = NOW;
    const sweeper = makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => log),
      clock: () => clockNow,
    });
    const handler = sweeperHandler(sweeper);
    const context = { getRemainingTimeInMillis: () => 60_000 };
    const invoke = (scheduled: number, wallClock: number) => {
      clockNow = wallClock;
      return handler({ time: new Date(scheduled).toISOString() }, context);
    };
    const queued = async () => (await drainQueue(rig, state.queueUrl)).map((r) => r.triggerId);
    return { state, sweeper, logChecks, invoke, queued };
  }

  it('refuses a run stamped years ahead, writing nothing, and the next scheduled run goes on', async () => {
    const { state, logChecks, invoke, queued } = await setup();
    logChecks(NOW - 30 * MIN, NOW);

    await expect(invoke(FUTURE, NOW)).rejects.toThrow(/2030-01-01T00:00:00\.000Z.*2026-11-22T03:00:00\.000Z/);
    expect(await readCursor(state.table)).toBeUndefined();
    expect(await queued()).toEqual([]);

    // The next scheduled run does its work.
    const next = await invoke(NOW + 15 * MIN, NOW + 15 * MIN);
    expect(next.stop).toBe('done');
    expect((await queued()).sort()).toEqual(['trg_0', 'trg_1', 'trg_2', 'trg_3', 'trg_4', 'trg_5']);
  });

  it('refuses a run stamped further back than Lambda delivers a late invocation', async () => {
    const { state, logChecks, invoke, queued } = await setup();
    logChecks(NOW - 8 * HOUR, NOW - 7 * HOUR);

    await expect(invoke(NOW - 7 * HOUR, NOW)).rejects.toThrow(
      /2026-11-21T20:00:00\.000Z.*2026-11-22T03:00:00\.000Z/,
    );
    expect(await readCursor(state.table)).toBeUndefined();
    expect(await queued()).toEqual([]);
  });

  it('runs a late invocation delivered within the hours Lambda keeps it', async () => {
    const { invoke } = await setup();
    const late = await invoke(NOW - 5 * HOUR, NOW);
    expect(late.stop).toBe('done');
  });

  it('is not superseded by a cursor a run stamped years ahead wrote before such runs were refused', async () => {
    const { state, sweeper, logChecks, invoke, queued } = await setup();
    logChecks(NOW - 30 * MIN, NOW);
    // What the handler did with such an invocation before: a run at its time.
    await sweeper.run({ now: new Date(FUTURE), remainingMs: 60_000 });
    expect((await readCursor(state.table))?.updatedAt).toBe(new Date(FUTURE).toISOString());
    await queued();

    logChecks(NOW, NOW + 15 * MIN);
    const next = await invoke(NOW + 15 * MIN, NOW + 15 * MIN);
    expect(next.stop).toBe('done');
    // The checks logged since are handed to the rule.
    expect(await queued()).toEqual(expect.arrayContaining(['trg_6', 'trg_7', 'trg_8']));
    expect((await readCursor(state.table))?.updatedAt).toBe(new Date(NOW + 15 * MIN).toISOString());
  });
});
