/**
 * An event whose metadata nests 5,000 levels (18 KB a client can log): its identity's canonical
 * JSON recursed per level and overflowed the stack, the run failed at that page, and every run
 * after it: no later event was ever handed out. Nesting past 64 levels is one marker now.
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

describe('an event with deeply nested metadata', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('does not stop the sweeper from processing the events after it', async () => {
    const state = await freshState(rig);
    const policy = canaryRulePolicy({ staleConfigs: false });
    const depth = 5000; // about 30 KB of JSON, as the API would serve it
    const deep = JSON.parse(`{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`) as Record<string, unknown>;
    const log: EventLike[] = [
      { timestamp: String(NOW - 10 * MIN), name: 'anything', metadata: deep },
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
    for (const at of [NOW, NOW + 15 * MIN]) {
      const s = await run(at);
      outcomes.push(
        s.stop === 'error' ? `error: ${String(s.error).slice(0, 80)}` : `ok ${s.events.newEvents}`,
      );
    }
    const queued = (await drainQueue(rig, state.queueUrl)).map(
      (b) => `${b.action} ${b.triggerId}/${b.phaseId}`,
    );
    expect({ outcomes, queued }).toEqual({ outcomes: ['ok 2', 'ok 0'], queued: ['approve_phase t1/p1'] });
  });
});
