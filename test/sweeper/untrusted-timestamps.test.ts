/**
 * A client SDK's timestamp "1e200" or "Infinity" is no time. It used to be taken as one
 * (`Number()` accepts both): the exposure was recorded in the last-seen index with a number
 * DynamoDB refuses, the flush threw, and every later run failed at the same event.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { checksPassed } from './events.js';
import { canaryRulePolicy, drainQueue, freshState, NOW, rigForTests, sweepsOver } from './harness.js';

const MIN = 60_000;

describe('an exposure event whose timestamp is a number out of any range', () => {
  const rig = rigForTests({ eventCount: 10 });

  for (const stamp of ['1e200', 'Infinity']) {
    it(`(timestamp "${stamp}") does not stop the sweeper`, async () => {
      const state = await freshState(rig);
      const policy = canaryRulePolicy();
      const log: EventLike[] = [
        { timestamp: String(NOW - 10 * MIN), name: 'page_view' },
        { timestamp: stamp, name: 'config_exposure', metadata: { config: 'cfg_a' } },
      ];
      const run = sweepsOver(rig, state, policy, () => log);
      const outcomes: string[] = [];
      outcomes.push(
        await run(NOW).then(
          () => 'ok',
          (e: Error) => `failed: ${e.message.slice(0, 100)}`,
        ),
      );
      log.push(checksPassed(NOW + 5 * MIN, 't1', 'p1'));
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
