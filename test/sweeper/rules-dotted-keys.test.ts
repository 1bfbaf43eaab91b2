/**
 * Review (event rules): `metadata.<key>[.<key>…]` paths read nested metadata only. Client SDKs
 * commonly log flat keys with dots in them (`{"release.phase": "canary"}`); a rule matching
 * `metadata.release.phase` (the only way a policy can name that key: the schema takes no other
 * spelling) never matched, and nothing said so: no skip, no warning, the approval never queued.
 * Driven through the real sweeper.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { drainQueue, freshState, makeSweeper, NOW, rigForTests, sortedLog } from './harness.js';

const policy = parsePolicy({
  version: 1,
  sweeper: {
    eventRules: [
      {
        name: 'approve canary after checks',
        match: { name: 'release_checks_passed', 'metadata.release.phase': 'canary' },
        enqueue: {
          action: 'approve_phase',
          triggerId: '{metadata.release.triggerID}',
          phaseId: '{metadata.release.phaseID}',
        },
      },
    ],
  },
});

describe('an event rule on a metadata key the client wrote with dots in it', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('matches it and fills its template from it', async () => {
    const state = await freshState(rig);
    const event: EventLike = {
      timestamp: String(NOW - 60_000),
      name: 'release_checks_passed',
      metadata: { 'release.phase': 'canary', 'release.triggerID': 'trg_7', 'release.phaseID': 'ph_1' },
    };
    const summary = await makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => [event]),
      clock: () => NOW,
    }).run({ now: new Date(NOW), remainingMs: 60_000 });
    expect(summary.rules.enqueued).toBe(1);
    const [body] = await drainQueue(rig, state.queueUrl);
    expect(body).toMatchObject({ action: 'approve_phase', triggerId: 'trg_7', phaseId: 'ph_1' });
  });
});
