/**
 * Review (event rules, attacker's view): `match` globs were compiled to backtracking regexes
 * (a glob of three stars and parts between them, as below), and event fields are client-written and
 * unbounded. One event whose matched field repeats the glob's literal parts without its tail took
 * cubic time: a 20 KB `metadata.ref` held the sweeper for tens of seconds, every run (the cursor is
 * saved only after the flush), so whoever can log an event stalled the event rules and the
 * stale sweep's exposures. A glob is now matched part by part, in one scan.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog } from './harness.js';

const MIN = 60_000;

describe('an event rule glob over a long client-written field', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('is matched in time proportional to the field, and the run goes on to the events after it', async () => {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      sweeper: {
        eventRules: [
          {
            name: 'approve release candidates',
            match: { name: 'release_checks_passed', 'metadata.ref': '*release/*/*-rc' },
            enqueue: { action: 'approve_phase', triggerId: '{metadata.triggerID}', phaseId: 'ph_1' },
          },
        ],
      },
    });
    const log: EventLike[] = [
      {
        timestamp: String(NOW - 3 * MIN),
        name: 'release_checks_passed',
        metadata: { ref: 'release/'.repeat(2_500), triggerID: 'trg_evil' },
      },
      {
        timestamp: String(NOW - 2 * MIN),
        name: 'release_checks_passed',
        metadata: { ref: 'refs/release/2026.11/v3-rc', triggerID: 'trg_1' },
      },
    ];
    const sweeper = makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => log),
      clock: () => NOW,
      pageSize: 1000,
    });
    // Elapsed time of the match itself (the sweeper's own clock stays fixed at NOW): the regex took
    // ~20 s here for the one long field; matched part by part it takes well under a millisecond.
    const started = performance.now();
    await sweeper.run({ now: new Date(NOW), remainingMs: 60_000 });
    const elapsed = performance.now() - started;
    const queued = await drainQueue(rig, state.queueUrl);
    expect(queued.map((b) => b.triggerId)).toEqual(['trg_1']);
    expect(elapsed).toBeLessThan(5_000);
  }, 120_000);
});
