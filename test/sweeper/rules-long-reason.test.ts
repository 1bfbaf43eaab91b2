/**
 * Review (event rules): the reason a rule's request carries is words for people, filled from the
 * event (the default names the event; a template may quote `{value}`), and the action request
 * takes at most 2000 characters of it. A matching event with a long value or name (a CI job that
 * logs its check report as the value) made the request invalid: the event was skipped ("not a valid
 * action request: reason …") and the approval it stood for never queued, for want of a cut.
 */
import { describe, expect, it } from 'vitest';
import { policySchemas } from '../../src/policy/schema.js';
import { buildRuleRequest } from '../../src/sweeper/event-rules.js';
import type { EventLike } from '../../src/sweeper/types.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const event: EventLike = {
  timestamp: String(NOW.getTime() - 60_000),
  name: 'release_checks_passed',
  value: `passed: ${'check ok; '.repeat(300)}`,
  metadata: { triggerID: 'trg_7', phaseID: 'ph_1' },
};
const rule = (reason?: string) =>
  policySchemas().eventRule.parse({
    name: 'approve canary',
    match: { name: 'release_checks_*' },
    enqueue: {
      action: 'approve_phase',
      triggerId: '{metadata.triggerID}',
      phaseId: '{metadata.phaseID}',
      ...(reason ? { reason } : {}),
    },
  });

describe('a rule request whose reason, filled from the event, runs long', () => {
  it('is queued with the reason cut to what a request takes', () => {
    const built = buildRuleRequest(rule('checks green: {value}'), event, 'h.0', NOW);
    expect(built.ok ? built.request : built.reason).toMatchObject({ triggerId: 'trg_7', phaseId: 'ph_1' });
    if (!built.ok) return;
    expect(built.request.reason?.length).toBeLessThanOrEqual(2000);
    expect(built.request.reason?.startsWith('checks green: passed: check ok;')).toBe(true);
  });

  it('is queued with the default reason cut, for a long event name', () => {
    const long = { ...event, name: `release_checks_${'x'.repeat(3000)}` };
    const built = buildRuleRequest(rule(), long, 'h.0', NOW);
    expect(built.ok ? built.request.reason?.length : built.reason).toBeLessThanOrEqual(2000);
  });
});
