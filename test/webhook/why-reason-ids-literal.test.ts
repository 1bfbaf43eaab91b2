/**
 * `/autopilot why` shows a request's steps in one code block, so the ids in a step's reason are
 * shown as code and format nothing, as the worker's code spans show them: an id holding a
 * backtick (an event rule fills ids from client events) is written with a quote instead, as
 * `inlineCode` writes it, so it cannot close the block; `&`, `<` and `>` are escaped. (Inline code
 * spans cannot sit inside the block, and the block keeps a platform message's or a person's `*`,
 * `_` and `~` from formatting the story: test/cli/audit.test.ts.)
 */
import { expect, it } from 'vitest';
import type { StoredAuditRecord } from '../../src/state/audit.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerWhy } from '../../src/webhook/why.js';

const TRIGGER = 'trg_`x` *b* <!here>';

const record: StoredAuditRecord = {
  requestId: 'why-ids',
  at: '2026-11-23T10:00:00.000Z',
  action: 'approve_phase',
  target: `trigger ${TRIGGER} phase ph_1`,
  effectKey: `approve_phase#${TRIGGER}#ph_1`,
  requester: 'events:rule',
  rule: 'otherwise',
  reason: `no approval rule matches events:rule for trigger ${TRIGGER} phase ph_1`,
  result: 'denied',
  dryRun: false,
};

it('keeps an id with a backtick and mrkdwn characters inside the steps’ one code block, escaped', async () => {
  const deps = { audit: { read: async () => ({ records: [record] }) } } as unknown as WebhookDeps;
  const at = Date.parse('2026-11-23T10:00:01Z');
  const answer = await answerWhy(deps, 'why-ids', at + 3_000, () => at);
  const blocks = (answer.reply as { blocks: Array<{ text?: { text: string } }> }).blocks;
  const steps = blocks[1]?.text?.text ?? '';
  expect(steps.startsWith('```\n') && steps.endsWith('```')).toBe(true);
  expect(steps.match(/`/g)).toHaveLength(6); // the block's two fences, nothing of the id's
  expect(steps).toContain("for trigger trg_'x' *b* &lt;!here&gt; phase ph_1");
  // The heading names the target in a code span of its own, escaped the same way.
  expect(blocks[0]?.text?.text).toContain("`trigger trg_'x' *b* &lt;!here&gt; phase ph_1`");
});
