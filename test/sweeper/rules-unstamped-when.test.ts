/**
 * Review (event rules): a logged event whose timestamp the client left out (the API client reads
 * a missing or non-text one as '') or wrote as no epoch-ms integer ("0x10", "1e3") was described
 * in the request's reason and in the channel's notice as logged at 1970-01-01 (`Number('')` is 0):
 * a date the event never had, shown to the person asked to approve. The sweeper's own reading of
 * timestamps (identity.ts `eventTime`) calls them no time at all.
 */
import { describe, expect, it } from 'vitest';
import { policySchemas } from '../../src/policy/schema.js';
import { buildRuleRequest, ruleNotification } from '../../src/sweeper/event-rules.js';
import type { EventLike } from '../../src/sweeper/types.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const rule = policySchemas().eventRule.parse({
  name: 'approve canary',
  match: { name: 'release_checks_passed' },
  enqueue: { action: 'approve_phase', triggerId: '{metadata.triggerID}', phaseId: '{metadata.phaseID}' },
  notify: true,
});
const base: EventLike = {
  timestamp: '',
  name: 'release_checks_passed',
  metadata: { triggerID: 'trg_7', phaseID: 'ph_1' },
};

describe('an event without an epoch-millisecond timestamp', () => {
  it.each(['', '   ', '0x10', '1e3'])(
    'is never said to be logged at another time (timestamp %j)',
    (timestamp) => {
      const event = { ...base, timestamp };
      const built = buildRuleRequest(rule, event, 'h.0', NOW);
      if (!built.ok) throw new Error(built.reason);
      expect(built.request.reason).not.toContain('1970-');
      expect(ruleNotification(rule, event)).not.toContain('1970-');
    },
  );

  it('still names the time of a well-stamped event', () => {
    const event = { ...base, timestamp: String(NOW.getTime() - 60_000) };
    const built = buildRuleRequest(rule, event, 'h.0', NOW);
    expect(built.ok && built.request.reason).toContain('at 2026-11-22T02:59:00.000Z');
  });
});
