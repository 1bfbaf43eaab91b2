/**
 * Review (Slack text): the sweeper cut client-written text by UTF-16 code units (`.slice`): a rule
 * notification's event fields, the names in the post summing up notices over the cap, and the
 * targets in the post summing up requests over the cap. An emoji where the cut fell was split:
 * the channel got half a character (a lone surrogate, which Slack shows as garbage and a strict
 * JSON reader refuses). Now every cut keeps whole characters. Driven through the real sweeper,
 * its Slack poster and a Slack stand-in.
 */
import { describe, expect, it } from 'vitest';
import { NOTIFY_CAP_PER_RULE } from '../../src/sweeper/notices.js';
import { ENQUEUE_CAP_PER_RULE } from '../../src/sweeper/request-cap.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { freshState, makeSweeper, NOW, rigForTests, rulesOnlyPolicy, sortedLog } from './harness.js';

/** Half of a surrogate pair: with the `u` flag, only a lone one matches. */
const HALF_CHARACTER = /[\uD800-\uDFFF]/u;
const EMOJI = '\u{1F389}';

/** `prefix` padded with `x` so that an emoji starts at UTF-16 offset `at - 1` (a cut at `at` splits it). */
const emojiAt = (prefix: string, at: number) =>
  `${prefix}${'x'.repeat(at - 1 - prefix.length)}${EMOJI.repeat(4)}`;

describe('client-written text the sweeper cuts for the channel', () => {
  const rig = rigForTests({ eventCount: 0 });

  async function sweep(events: EventLike[]) {
    const state = await freshState(rig);
    rig.slack.posts.length = 0;
    const summary = await makeSweeper(rig, state, {
      policy: rulesOnlyPolicy(rig),
      events: sortedLog(() => events),
      clock: () => NOW,
      pageSize: 1000,
    }).run({ now: new Date(NOW), remainingMs: 120_000 });
    return { summary, texts: rig.slack.posts.map((p) => String(p.body.text ?? '')) };
  }

  it('a rule notification cuts the event’s fields between characters, never inside an emoji', async () => {
    const { summary, texts } = await sweep([
      // A readable neighbour: the walk places the unreadable timestamp next to it.
      { timestamp: String(NOW - 120_000), name: 'page_view' },
      {
        timestamp: emojiAt('', 40),
        name: emojiAt('experiment_', 120),
        value: emojiAt('', 80),
        source: emojiAt('', 80),
        userID: emojiAt('', 80),
        metadata: { [emojiAt('k', 40)]: emojiAt('', 60) },
      },
    ]);
    expect(summary.rules.notified).toBe(1);
    const [text] = texts.filter((t) => t.includes('rule "tell the channel"'));
    expect(text).toBeDefined();
    expect(text).not.toMatch(HALF_CHARACTER);
    // Cut, and the emoji before each cut kept whole.
    expect(text).toContain(`x${EMOJI}\``);
  });

  it('the post summing up notices over the cap cuts the names between characters', async () => {
    const events = Array.from({ length: NOTIFY_CAP_PER_RULE + 3 }, (_, i) => ({
      timestamp: String(NOW - 600_000 + i * 1000),
      name: emojiAt(`experiment_${i}_`, 60),
    }));
    const { summary, texts } = await sweep(events);
    expect(summary.rules.notifyCapped).toBe(3);
    const [summed] = texts.filter((t) => t.includes('more events'));
    expect(summed).toBeDefined();
    expect(summed).not.toMatch(HALF_CHARACTER);
    expect(summed).toContain(`x${EMOJI}\``);
  });

  it('the post summing up requests over the cap cuts the targets between characters', async () => {
    // "trigger " and the trigger id the client logged: the target's cut (80) falls in the emoji.
    const events = Array.from({ length: ENQUEUE_CAP_PER_RULE + 3 }, (_, i) => ({
      timestamp: String(NOW - 600_000 + i * 1000),
      name: 'release_checks_passed',
      metadata: {
        phase: 'canary',
        triggerID: emojiAt(`trigger t${i}_`, 80).slice('trigger '.length),
        phaseID: 'ph_1',
      },
    }));
    const { summary, texts } = await sweep(events);
    expect(summary.rules.enqueueCapped).toBe(3);
    const [summed] = texts.filter((t) => t.includes('were not queued this run'));
    expect(summed).toBeDefined();
    expect(summed).not.toMatch(HALF_CHARACTER);
    expect(summed).toContain(`x${EMOJI}\``);
  });
});
