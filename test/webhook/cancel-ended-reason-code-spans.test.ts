/**
 * `/autopilot cancel` of a request that had already ended otherwise says how it ended, with the
 * end's reason. The worker's post of that end shows the reason's ids in code spans
 * (`reasonMrkdwn`); the cancel's reply only escaped it, so an id an event rule filled in from a
 * client's event (`*`, `_`, `~`, a backtick) formatted the reply's words around it.
 */
import { expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import type { HeldRecord } from '../../src/state/held.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerCancel } from '../../src/webhook/held.js';

const request: ActionRequest & { requestId: string } = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_*bold*',
  phaseId: 'ph_`2`_x_',
  requestId: 'req-ended',
  requestedBy: { source: 'events', id: 'rule' },
  requestedAt: '2026-11-23T10:00:00Z',
};

const held = {
  requestId: 'req-ended',
  action: 'approve_phase',
  target: 'trigger trg_*bold* phase ph_`2`_x_',
  requester: 'events:rule',
  why: 'ask',
  rule: 'ask',
  reason: 'asked',
  request,
} as unknown as HeldRecord;

it('shows the ended request’s reason with its ids in code spans, the rest escaped', async () => {
  const deps = {
    held: {
      cancel: async () => ({
        ok: false,
        code: 'ended-otherwise',
        held,
        final: {
          result: 'denied',
          rule: 'maxDeferHours',
          reason: 'no answer for trigger trg_*bold* phase ph_`2`_x_ within 72 hours <!here>',
          requestId: 'req-ended',
          at: '2026-11-26T10:00:00.000Z',
        },
      }),
    },
  } as unknown as WebhookDeps;
  const at = Date.parse('2026-11-26T10:00:01Z');
  const answer = await answerCancel(
    deps,
    { userId: 'U0ADMIN', requestId: 'slash-1', retry: false, slash: '/autopilot' },
    { name: 'cancel', requestId: 'req-ended' },
    at + 3_000,
    () => at,
  );
  const section = (answer.reply as { blocks: Array<{ text?: { text: string } }> }).blocks[0]?.text?.text;
  expect(section).toContain(
    "(maxDeferHours: no answer for trigger `trg_*bold*` phase `ph_'2'_x_` within 72 hours &lt;!here&gt;).",
  );
});
