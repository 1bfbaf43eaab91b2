/**
 * An event whose metadata nests 5,000 levels (18 KB a client can log): its identity's canonical
 * JSON recursed per level and overflowed the stack, the run failed at that page, and every run
 * after it: no later event was ever handed out. Nesting past 64 levels is one marker now.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { checksPassed } from './events.js';
import { canaryRulePolicy, drainQueue, freshState, NOW, rigForTests, sweepsOver } from './harness.js';

const MIN = 60_000;

describe('an event with deeply nested metadata', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('does not stop the sweeper from processing the events after it', async () => {
    const state = await freshState(rig);
    const policy = canaryRulePolicy({ staleConfigs: false });
    const depth = 5000; // about 30 KB of JSON, as the API would serve it
    const deep = JSON.parse(`{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`) as Record<string, unknown>;
    const log: EventLike[] = [
      { timestamp: String(NOW - 10 * MIN), name: 'anything', metadata: deep },
      checksPassed(NOW - 5 * MIN, 't1', 'p1'),
    ];
    const run = sweepsOver(rig, state, policy, () => log);
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
