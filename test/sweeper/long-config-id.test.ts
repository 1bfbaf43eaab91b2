/**
 * An exposure event (written by any client SDK) whose config id is longer than a DynamoDB
 * sort key may be (1024 bytes). It used to be recorded in the last-seen index anyway: the
 * batch write was refused, the flush threw, and every later run failed at the same event.
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

describe('an exposure naming an over-long config id', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('does not stop the sweeper from processing the events after it', async () => {
    const state = await freshState(rig);
    const policy = canaryRulePolicy();
    const log: EventLike[] = [
      { timestamp: String(NOW - 10 * MIN), name: 'config_exposure', metadata: { config: 'x'.repeat(2000) } },
      {
        timestamp: String(NOW - 5 * MIN),
        name: 'release_checks_passed',
        metadata: { triggerID: 't1', phaseID: 'p1' },
      },
    ];
    const run = (at: number) =>
      makeSweeper(rig, state, { policy, events: sortedLog(() => log), clock: () => at, pageSize: 1000 }).run({
        now: new Date(at),
        remainingMs: 60_000,
      });
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
