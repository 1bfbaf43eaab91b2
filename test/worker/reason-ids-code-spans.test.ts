/**
 * The worker's reply and question show the request's ids in code spans, in the reason too: the
 * policy writes its reasons as plain text (`no approval rule matches … for trigger <id> phase
 * <id>`), and the reply only escaped them, so an id an event rule's template filled from a
 * client's event (or a CI requester's id) holding `*`, `_`, `~` or a backtick bolded, slanted or
 * struck our words around it. The words stay as the policy wrote them.
 */
import { describe, expect, it } from 'vitest';
import { type ActionRequest, actionTarget } from '../../src/actions/request.js';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { askMessage, outcomeMessage, outcomeText } from '../../src/worker/replies.js';

const policy = parsePolicy({
  version: 1,
  timezone: 'UTC',
  approvals: { rules: [{ name: 'people', when: { requesters: ['slack:*'] }, decision: 'approve' }] },
});

const request: ActionRequest = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_*bold* _it_',
  phaseId: 'ph_~x~`2`',
  requestedBy: { source: 'ci', id: 'deploy*.yml' },
  requestedAt: '2026-11-23T10:00:00Z',
};

const sectionText = (message: ReturnType<typeof outcomeMessage>) =>
  (message.blocks?.[0] as { text: { text: string } } | undefined)?.text.text;

describe('ids in a worker reason are code spans', () => {
  it('the "otherwise" denial names the trigger, phase and requester in code spans', () => {
    const decision = decide(policy, {
      request,
      now: new Date('2026-11-23T10:00:00Z'),
      pause: { paused: false },
    });
    expect(decision.rule).toBe('otherwise');
    const report = {
      request,
      requestId: 'req_1',
      result: 'denied' as const,
      rule: decision.rule,
      reason: decision.reason,
      dryRun: false,
    };
    const expected =
      "no approval rule matches `ci:deploy*.yml` for trigger `trg_*bold* _it_` phase `ph_~x~'2'`; " +
      'the policy denies what no rule allows (approvals.otherwise)';
    expect(sectionText(outcomeMessage(report))).toContain(expected);
    expect(outcomeText(report)).toContain(`Why: ${expected}`);
  });

  it("the question's context shows a reason's ids in code spans", () => {
    const message = askMessage(
      { ...request, requestId: 'req_2' },
      { rule: 'ask', reason: `asked for ${actionTarget(request)} <!here>` },
    );
    const context = (message?.blocks?.[1] as { elements: { text: string }[] } | undefined)?.elements[0]?.text;
    expect(context).toContain(
      "asked for trigger `trg_*bold* _it_` phase `ph_~x~'2'` &lt;!here&gt; · request `req_2`",
    );
  });

  it("keeps a backtick in a reason's own words from pairing with an id's span", () => {
    // A platform refusal quotes text of its own: its backtick opened a span that the trigger's
    // opening backtick closed, and the trigger id stood bare (its `*bold*` formatted).
    const report = {
      request,
      requestId: 'req_3',
      result: 'rejected' as const,
      rule: 'platform',
      reason: 'platform said: `locked` for trigger trg_*bold* _it_ phase ph_~x~`2`, try `later',
      dryRun: false,
    };
    const text = sectionText(outcomeMessage(report)) ?? '';
    expect(text).toContain(
      "platform said: 'locked' for trigger `trg_*bold* _it_` phase `ph_~x~'2'`, try 'later",
    );
  });
});
