/**
 * Discovered config ids come from exposure events, which any client SDK writes, and an id may hold
 * any printable character. The stale summary listed them bare, so their mrkdwn formatted the line:
 * `*promo` and `banner*` made bold everything between them (ours included), `_legacy` and `hero_`
 * italic, and a backtick opened a code span that swallowed the rest of the line. Every other post
 * shows a client-written id in a code span of its own (src/slack/mrkdwn.ts `inlineCode`).
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { exposure } from './events.js';
import { DAY, discoveredStalePolicy, freshState, NOW, rigForTests, sweepsOver } from './harness.js';

const HOUR = 3_600_000;

describe('the stale summary posted to the channel', () => {
  const rig = rigForTests({ eventCount: 10 });

  it('shows each discovered config id in a code span of its own, whatever mrkdwn it holds', async () => {
    const ids = ['*promo', 'banner*', '_legacy', 'hero_', 'tick`er', '~old~'];
    const log: EventLike[] = [
      ...Array.from({ length: 60 }, (_, i) => exposure(NOW - (60 - i) * DAY + HOUR, 'cfg_busy')),
      ...ids.map((id, i) => exposure(NOW - 45 * DAY + i * HOUR, id)),
    ];
    const state = await freshState(rig);
    const policy = discoveredStalePolicy(rig, 10);
    rig.slack.posts.length = 0;
    const summary = await sweepsOver(rig, state, policy, () => log)(NOW);
    expect(summary.stale.queued).toEqual(ids);
    const text = rig.slack.posts.find((p) => p.body.text?.includes('Stale config sweep'))?.body.text ?? '';
    const queuedLine = text.split('\n').find((line) => line.startsWith('queued for archiving'));
    expect(queuedLine).toBe(
      "queued for archiving: `*promo`, `_legacy`, `banner*`, `hero_`, `tick'er`, `~old~`",
    );
  });
});
