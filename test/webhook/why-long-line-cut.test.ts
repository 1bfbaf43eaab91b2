/**
 * `/autopilot why` keeps a long story within Slack's section: the first and the last line are
 * shortened, and the steps left out between are counted. It said "(0 more …)" when only those two
 * lines were shortened (nothing left out), and it cut them after escaping with `.slice`: through an
 * escape (`&am…`, shown as text) or between the halves of an emoji (a lone surrogate).
 */
import { expect, it } from 'vitest';
import type { StoredAuditRecord } from '../../src/state/audit.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerWhy } from '../../src/webhook/why.js';

function step(reason: string, at = '2026-11-23T10:00:00.000Z'): StoredAuditRecord {
  return {
    requestId: 'why-cut',
    at,
    action: 'archive_config',
    target: 'config feature_tour',
    effectKey: 'archive_config#feature_tour',
    requester: 'ci:github-actions/deploy.yml',
    rule: 'actions.archive_config',
    reason,
    result: 'rejected',
    dryRun: false,
  };
}

/** The steps `why` shows for these records: the code block's text. */
async function shownSteps(records: StoredAuditRecord[]): Promise<string> {
  const deps = { audit: { read: async () => ({ records, final: undefined }) } } as unknown as WebhookDeps;
  const answer = await answerWhy(deps, 'why-cut', Date.now() + 3_000, Date.now);
  const blocks = (answer.reply as { blocks?: { text?: { text?: string } }[] }).blocks ?? [];
  const body = blocks.at(-1)?.text?.text ?? '';
  expect(body.startsWith('```')).toBe(true);
  return body;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CUT_ESCAPE = /&(?!(?:amp|lt|gt);)/;

it('cuts a long reason neither inside an escape nor inside an emoji, and counts no "0 more"', async () => {
  // Every offset of the cut against the 5-character `&amp;` and the 2-unit emoji.
  for (let pad = 0; pad < 10; pad++) {
    for (const unit of ['a & b ', 'rollout 🚀 ', '<team> ']) {
      const body = await shownSteps([step(`${'x'.repeat(pad)}${unit.repeat(800)}`)]);
      expect(body).toContain('…');
      expect(body).not.toMatch(LONE_SURROGATE);
      expect(body).not.toMatch(CUT_ESCAPE);
      expect(body).not.toContain('more: ');
      expect(body).toContain('…\nended: rejected (rule actions.archive_config)');
      expect(body.length).toBeLessThanOrEqual(3000);
    }
  }
});

it('counts the steps left out between when there are some', async () => {
  const steps = Array.from({ length: 40 }, (_, i) =>
    step(
      `look ${i} ${'y'.repeat(150)}`,
      `2026-11-23T${String(10 + Math.floor(i / 4)).padStart(2, '0')}:${String((i % 4) * 15).padStart(2, '0')}:00.000Z`,
    ),
  );
  const body = await shownSteps(steps);
  const left = /\((\d+) more: /.exec(body)?.[1];
  expect(Number(left)).toBeGreaterThan(0);
  expect(body).toContain('look 0 ');
  expect(body).toContain('look 39 ');
});
