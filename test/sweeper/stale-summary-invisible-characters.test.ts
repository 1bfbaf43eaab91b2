/**
 * Discovered config ids come from exposure events, which any client SDK writes. An id passes the
 * identifier rule with a zero-width space or a bidi override in it (they are neither whitespace nor
 * control characters), and the stale summary posted them as written: the channel read
 * "queued for archiving: checkout_flow" about a look-alike id, or a line a right-to-left override
 * turned around. Every other post shows such characters as `[U+…]` (src/slack/mrkdwn.ts).
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure } from './events.js';
import { DAY, discoveredStalePolicy, freshState, NOW, rigForTests, sweepsOver } from './harness.js';

const HOUR = 3_600_000;

describe('the stale summary posted to the channel', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('shows the invisible characters of a discovered config id', async () => {
    const lookalike = 'checkout\u200Bflow';
    const reversed = 'cfg_\u202Ewolf_tuokcehc';
    const log: EventLike[] = [
      ...Array.from({ length: 60 }, (_, i) => exposure(NOW - (60 - i) * DAY + HOUR, 'cfg_busy')),
      exposure(NOW - 45 * DAY, lookalike),
      exposure(NOW - 44 * DAY, reversed),
    ];
    const state = await freshState(rig);
    const policy = discoveredStalePolicy(rig);
    rig.slack.posts.length = 0;
    const summary = await sweepsOver(rig, state, policy, () => log)(NOW);
    expect(summary.stale.queued).toEqual([lookalike, reversed]);
    const text = rig.slack.posts.find((p) => p.body.text?.includes('Stale config sweep'))?.body.text ?? '';
    expect(text).toContain('checkout[U+200B]flow');
    expect(text).toContain('cfg_[U+202E]wolf_tuokcehc');
    expect(text).not.toMatch(/[\u200B\u202E]/);
  });
});
