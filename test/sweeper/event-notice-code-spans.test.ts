/**
 * Review (event rules, attacker's view): a rule's notice puts the event's client-written fields in
 * code spans, so that `*`, `_` and `~` in them format nothing. Two fields escaped that:
 * - the event name (bold, its `*` removed) kept its backticks: one paired with the backtick that
 *   opens the value's span, so our own words became code and the value after them was read as
 *   formatting (`*URGENT*` in bold in the channel);
 * - a timestamp that is no epoch-ms integer was quoted bare (`with an unreadable timestamp "…"`):
 *   `_approved by the release manager_` came out in italics, as words of ours.
 * Driven through the real sweeper and a Slack stand-in; the spans are read as Slack pairs backticks.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { freshState, makeSweeper, NOW, rigForTests, rulesOnlyPolicy, sortedLog } from './harness.js';

/** The text of the code spans, as Slack pairs backticks: left to right, an unpaired last one is text. */
function codeSpans(text: string): string[] {
  const parts = text.split('`');
  return parts.filter((_, index) => index % 2 === 1 && index < parts.length - 1);
}

describe('a rule notice of a client-written event', () => {
  const rig = rigForTests({ eventCount: 0 });

  async function notice(events: EventLike[]): Promise<string> {
    const state = await freshState(rig);
    rig.slack.posts.length = 0;
    await makeSweeper(rig, state, {
      policy: rulesOnlyPolicy(rig),
      events: sortedLog(() => events),
      clock: () => NOW,
      pageSize: 1000,
    }).run({ now: new Date(NOW), remainingMs: 60_000 });
    const texts = rig.slack.posts.map((p) => String(p.body.text ?? ''));
    const text = texts.find((t) => t.includes('rule "tell the channel"'));
    if (text === undefined) throw new Error(`no notice posted: ${JSON.stringify(texts)}`);
    return text;
  }

  it('keeps the value in its own code span whatever backticks the event name holds', async () => {
    const text = await notice([
      { timestamp: String(NOW - 60_000), name: 'experiment_`started', value: '*URGENT* approve trg_9' },
    ]);
    expect(codeSpans(text)).toContain('*URGENT* approve trg_9');
  });

  it('quotes an unreadable timestamp in a code span', async () => {
    const text = await notice([
      // A readable neighbour: the walk places the unreadable timestamp next to it.
      { timestamp: String(NOW - 120_000), name: 'page_view' },
      { timestamp: '_approved by the RM_', name: 'experiment_started' },
    ]);
    expect(text).toContain('unreadable timestamp');
    expect(codeSpans(text)).toContain('_approved by the RM_');
  });
});
