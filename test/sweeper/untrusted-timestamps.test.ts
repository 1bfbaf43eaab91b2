/**
 * A client SDK's timestamp "1e200" or "Infinity" is no time. It used to be taken as one
 * (`Number()` accepts both): the exposure was recorded in the last-seen index with a number
 * DynamoDB refuses, the flush threw, and every later run failed at the same event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  canaryRulePolicy,
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  type Rig,
  sortedLog,
  startRig,
} from './harness.js';

const MIN = 60_000;

describe('an exposure event whose timestamp is a number out of any range', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  for (const stamp of ['1e200', 'Infinity']) {
    it(`(timestamp "${stamp}") does not stop the sweeper`, async () => {
      const state = await freshState(rig);
      const policy = canaryRulePolicy();
      const log: EventLike[] = [
        { timestamp: String(NOW - 10 * MIN), name: 'page_view' },
        { timestamp: stamp, name: 'config_exposure', metadata: { config: 'cfg_a' } },
      ];
      const run = (at: number) =>
        makeSweeper(rig, state, {
          policy,
          events: sortedLog(() => log),
          clock: () => at,
          pageSize: 1000,
        }).run({
          now: new Date(at),
          remainingMs: 60_000,
        });
      const outcomes: string[] = [];
      outcomes.push(
        await run(NOW).then(
          () => 'ok',
          (e: Error) => `failed: ${e.message.slice(0, 100)}`,
        ),
      );
      log.push({
        timestamp: String(NOW + 5 * MIN),
        name: 'release_checks_passed',
        metadata: { triggerID: 't1', phaseID: 'p1' },
      });
      outcomes.push(
        await run(NOW + 15 * MIN).then(
          () => 'ok',
          (e: Error) => `failed: ${e.message.slice(0, 100)}`,
        ),
      );
      const queued = (await drainQueue(rig, state.queueUrl)).map((b) => b.action);
      expect({ outcomes, queued }).toEqual({ outcomes: ['ok', 'ok'], queued: ['approve_phase'] });
    });
  }
});
