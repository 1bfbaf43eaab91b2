/**
 * Review (event rules, attacker's view): `policy check` says of a template placeholder that names no
 * event field (`{metadata.triggerID.}`, a stray dot) that "it is never filled, so every event this
 * rule matches is skipped", and so checks no `match` constraint for it: the rule reads as dead. But
 * the sweeper read such a path anyway, as a flat key with its dots: a client logging
 * `{"triggerID": "trg_1", "triggerID.": "trg_evil"}` passed the rule's exact match on
 * `metadata.triggerID` and had the request fill `trg_evil`, a trigger the match never admitted.
 * The sweeper now reads only the paths the policy may name (src/policy/event-paths.ts), as the
 * warning says.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { drainQueue, freshState, NOW, rigForTests, sweepsOver } from './harness.js';

const policy = parsePolicy({
  version: 1,
  approvals: {
    rules: [
      {
        name: 'events approve the canary phase',
        when: { requesters: ['events:approve canary'], triggers: ['*'], phases: ['ph_1'] },
        decision: 'approve',
        maxPerHour: 10,
      },
    ],
  },
  sweeper: {
    eventRules: [
      {
        name: 'approve canary',
        match: { name: 'release_checks_passed', 'metadata.triggerID': 'trg_1' },
        enqueue: { action: 'approve_phase', triggerId: '{metadata.triggerID.}', phaseId: 'ph_1' },
      },
    ],
  },
});

describe('a template placeholder that names no event field', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('is reported as never filled by policy check', () => {
    const codes = policyWarnings(policy).map((w) => w.code);
    expect(codes).toContain('template-unknown-field');
    expect(codes).not.toContain('template-unconstrained');
  });

  it('is never filled from a client-written flat key either: nothing is queued', async () => {
    const state = await freshState(rig);
    const log: EventLike[] = [
      {
        timestamp: String(NOW - 60_000),
        name: 'release_checks_passed',
        metadata: { triggerID: 'trg_1', 'triggerID.': 'trg_evil' },
      },
    ];
    const summary = await sweepsOver(rig, state, policy, () => log)(NOW);
    const queued = await drainQueue(rig, state.queueUrl);
    expect(queued.map((b) => b.triggerId)).toEqual([]);
    expect(summary.rules.skipped).toBe(1);
  });
});
