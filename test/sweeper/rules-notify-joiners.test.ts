/**
 * Review (Slack text): `showInvisible` marked every zero-width joiner, so an ordinary emoji
 * sequence (woman technologist: a woman and a laptop joined by U+200D) or Persian and Indic text
 * (which write U+200C and U+200D between letters) reached the channel with `[U+200D]` in the middle of it. A
 * joiner between two visible non-ASCII characters is now left alone; one inside an ASCII word (a
 * name passing for another) and every bidi override are still shown. Driven through the real
 * sweeper, its Slack poster and a Slack stand-in.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { NOW, rigForTests, sweepToNotice } from './harness.js';

const TECHNOLOGIST = '\u{1F469}\u200d\u{1F4BB}';
/** Persian "I want": a zero-width non-joiner after its prefix. */
const PERSIAN = '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645';
/** Devanagari ka, virama, a zero-width joiner (half form) and ssa. */
const HINDI = '\u0915\u094d\u200d\u0937';

describe('a rule notification for an event written with joiners', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('shows emoji and scripts as written, and still marks a joiner in an ASCII word and a bidi override', async () => {
    const event: EventLike = {
      timestamp: String(NOW - 60_000),
      name: `experiment_done ${TECHNOLOGIST}`,
      value: PERSIAN,
      source: HINDI,
      userID: 'experiment_start\u200ded',
      metadata: { note: `\u202e${TECHNOLOGIST}`, edge: `\u200d${TECHNOLOGIST}\u200d` },
    };
    const { summary, text } = await sweepToNotice(rig, event);

    expect(summary.rules.notified).toBe(1);
    expect(text).toBeDefined();
    expect(text).toContain(`*experiment_done ${TECHNOLOGIST}*`);
    expect(text).toContain(`value \`${PERSIAN}\``);
    expect(text).toContain(`from \`${HINDI}\``);
    // Look-alikes stay visible: a joiner next to ASCII, at an edge, and the override before an emoji.
    expect(text).toContain('user `experiment_start[U+200D]ed`');
    expect(text).toContain(`note=[U+202E]${TECHNOLOGIST}`);
    expect(text).toContain(`edge=[U+200D]${TECHNOLOGIST}[U+200D]`);
  });
});
