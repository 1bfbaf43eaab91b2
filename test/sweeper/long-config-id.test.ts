/**
 * An exposure event (written by any client SDK) whose config id is longer than a DynamoDB
 * sort key may be (1024 bytes). It used to be recorded in the last-seen index anyway: the
 * batch write was refused, the flush threw, and every later run failed at the same event.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { checksPassed } from './events.js';
import { canaryRulePolicy, drainQueue, freshState, NOW, rigForTests, sweepsOver } from './harness.js';

const MIN = 60_000;

describe('an exposure naming an over-long config id', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('does not stop the sweeper from processing the events after it', async () => {
    const state = await freshState(rig);
    const policy = canaryRulePolicy();
    const log: EventLike[] = [
      { timestamp: String(NOW - 10 * MIN), name: 'config_exposure', metadata: { config: 'x'.repeat(2000) } },
      checksPassed(NOW - 5 * MIN, 't1', 'p1'),
    ];
    const run = sweepsOver(rig, state, policy, () => log);
    const outcomes: string[] = [];
    for (const at of [NOW, NOW + 15 * MIN, NOW + 30 * MIN]) {
      outcomes.push(
        await run(at).then(
          (s) => `ok ${s.events.newEvents}`,
          (e: Error) => `failed: ${e.message.slice(0, 120)}`,
        ),
      );
    }
    const queued = (await drainQueue(rig, state.queueUrl)).map((b) => b.action);
    expect({ outcomes, queued }).toEqual({ outcomes: ['ok 2', 'ok 0', 'ok 0'], queued: ['approve_phase'] });
  });
});
