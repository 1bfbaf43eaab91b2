/**
 * Review (event rules): a rule without a `reason` template gave its request the default reason
 * `event <name> at … matched rule "…"` with the event's name bare. Under a glob (`release_*`) a
 * client chooses that name, and the "Approval needed" question quoting the reason let its `*`, `_`
 * or backtick bold or slant the words around it. The name is now a code span of its own.
 */
import { describe, expect, it } from 'vitest';
import { policySchemas } from '../../src/policy/schema.js';
import { buildRuleRequest } from '../../src/sweeper/event-rules.js';
import { askMessage } from '../../src/worker/replies.js';

const NOW = new Date('2026-11-22T03:00:00.000Z');
const rule = policySchemas().eventRule.parse({
  name: 'approve canary',
  match: { name: 'release_*' },
  enqueue: { action: 'approve_phase', triggerId: '{metadata.triggerID}', phaseId: '{metadata.phaseID}' },
});
const event = {
  timestamp: String(NOW.getTime() - 60_000),
  name: 'release_*now* _approved by the RM_ `x',
  metadata: { triggerID: 'trg_7', phaseID: 'ph_1' },
};

describe('the default reason of a rule request', () => {
  it('shows the event name in a code span, in the request and in the question quoting it', () => {
    const built = buildRuleRequest(rule, event, 'h.0', NOW);
    if (!built.ok) throw new Error(built.reason);
    const expected =
      'event `release_*now* _approved by the RM_ \'x` at 2026-11-22T02:59:00.000Z matched rule "approve canary"';
    expect(built.request.reason).toBe(expected);
    const question = askMessage({ ...built.request, requestId: 'req_1' }, { rule: 'ask', reason: 'asks' });
    const section = (question?.blocks?.[0] as { text: { text: string } } | undefined)?.text.text;
    expect(section).toContain(`\n> ${expected}`);
  });
});
