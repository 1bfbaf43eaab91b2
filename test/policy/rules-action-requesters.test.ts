/**
 * Review (policy check): `policy check` warns when an approval rule lets every event rule approve
 * (`events:*`, `*`), since anyone holding a client key can log an event. The two other mutations
 * event rules can queue, disable_groups and archive_config, are allowed by
 * `actions.<action>.requesters` alone (the worker approves a matching requester outright: no
 * window, no question); a `"*"` or `"events:*"` there let every event rule, also ones added later,
 * disable groups in production or archive configs, and the check said nothing.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import { buildRuleRequest, ruleMatches } from '../../src/sweeper/event-rules.js';

const REPO = resolve(import.meta.dirname, '../..');
const shipped = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
const NOW = new Date('2026-11-30T10:00:00Z');

/** The shipped policy plus an event rule that disables a checkout experiment's losing group. */
function withDisableRule(requesters: string[]) {
  const input = structuredClone(shipped);
  input.actions.disable_groups.requesters = requesters;
  input.sweeper.eventRules.push({
    name: 'drop losing group',
    match: { name: 'experiment_loser', 'metadata.experiment': 'exp_checkout' },
    enqueue: { action: 'disable_groups', experimentId: '{metadata.experiment}', groupNames: ['control'] },
  });
  return parsePolicy(input);
}

describe('policy check on actions reachable from any event rule', () => {
  it.each([['*'], ['events:*']])('warns when actions.disable_groups.requesters holds %j', (glob) => {
    const policy = withDisableRule(['slack:U0ADMIN', glob]);
    // The worker would indeed disable the group for any event rule, at once.
    const rule = policy.sweeper.eventRules.find((r) => r.name === 'drop losing group');
    const event = {
      timestamp: String(NOW.getTime()),
      name: 'experiment_loser',
      metadata: { experiment: 'exp_checkout' },
    };
    expect(rule && ruleMatches(rule, event)).toBe(true);
    const built = rule && buildRuleRequest(rule, event, 'h.0', NOW);
    if (!built?.ok) throw new Error('not built');
    expect(decide(policy, { request: built.request, now: NOW, pause: { paused: false } }).outcome).toBe(
      'approve',
    );

    const warnings = policyWarnings(policy);
    expect(warnings.map((w) => [w.code, w.where])).toContainEqual([
      'events-any-rule',
      'actions.disable_groups',
    ]);
  });

  it('says nothing when the section names its event rule', () => {
    const policy = withDisableRule(['slack:U0ADMIN', 'events:drop losing group']);
    expect(policyWarnings(policy)).toEqual([]);
  });
});
