/**
 * Invisible characters in untrusted text are shown as `[U+…]` (src/slack/mrkdwn.ts), so that a
 * bidi override cannot turn our line around and a zero-width space cannot pass a name off as
 * another. The same rule marked the zero-width joiner inside an emoji sequence (👩‍💻, 🏳️‍🌈)
 * and the zero-width non-joiner of ordinary Persian or Hindi words: a reason a producer wrote
 * reached the channel as "👩[U+200D]💻", text nobody wrote. The real worker's question and
 * outcome posts, and the sweeper's line helper; a joiner between plain letters is still shown.
 */
import { describe, expect, it } from 'vitest';
import { oneLine, quoteLines } from '../../src/slack/mrkdwn.js';
import { askMessage, outcomeMessage } from '../../src/worker/replies.js';

const request = {
  version: 1 as const,
  action: 'approve_phase' as const,
  triggerId: 'trg_1',
  phaseId: 'ph_1',
  requestedBy: { source: 'ci' as const, id: 'deploy' },
  requestedAt: '2026-11-23T10:00:00Z',
  requestId: 'req-joiners',
};

const TECHNOLOGIST = '\u{1F469}\u200D\u{1F4BB}'; // 👩‍💻
const RAINBOW_FLAG = '\u{1F3F3}\uFE0F\u200D\u{1F308}'; // 🏳️‍🌈
const FAMILY = '\u{1F468}\u{1F3FD}\u200D\u{1F469}\u200D\u{1F467}'; // 👨🏽‍👩‍👧
const PERSIAN = 'می\u200Cخواهم'; // "I want", with its usual non-joiner
const HINDI = 'क्\u200Dष'; // a half form, asked for with a joiner

const blockText = (message: ReturnType<typeof outcomeMessage> | undefined) => JSON.stringify(message?.blocks);

describe('ordinary text with joiners in a post', () => {
  it('keeps emoji sequences and the joiners of Persian and Hindi words as written', () => {
    const reason = `shipped by ${TECHNOLOGIST} ${FAMILY} for pride ${RAINBOW_FLAG}; ${PERSIAN} ${HINDI}`;
    const question = askMessage({ ...request, reason }, { rule: 'ask', reason: 'a rule asks' });
    const outcome = outcomeMessage({
      request,
      requestId: request.requestId,
      result: 'denied',
      rule: 'r',
      reason,
      dryRun: false,
    });
    for (const text of [blockText(question), blockText(outcome), oneLine(reason), quoteLines(reason)]) {
      expect(text).not.toContain('[U+');
      for (const word of [TECHNOLOGIST, RAINBOW_FLAG, FAMILY, PERSIAN, HINDI])
        expect(text).toContain(JSON.stringify(word).slice(1, -1));
    }
  });

  it('still shows a joiner or a bidi mark that ordinary text does not hold', () => {
    expect(oneLine('ad\u200Dmin')).toBe('ad[U+200D]min');
    expect(oneLine('ad\u200Cmin')).toBe('ad[U+200C]min');
    expect(oneLine('\u{1F469}\u200Dadmin')).toBe('\u{1F469}[U+200D]admin');
    expect(oneLine('x\u202Ey')).toBe('x[U+202E]y');
    expect(oneLine('\u200D')).toBe('[U+200D]');
  });
});
