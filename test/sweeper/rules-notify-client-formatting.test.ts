/**
 * Review (event rules): a rule notification quotes an event's source, user and metadata, all
 * written by a client SDK. They were escaped (no mention, no link) but not put in code spans, so
 * a client's `*`, `_` and `~` still formatted the notice: a source of `web *approved by the
 * release manager*` read as our bold words. Driven through the real sweeper, its Slack poster and
 * a Slack stand-in.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { NOW, rigForTests, sweepToNotice } from './harness.js';

describe('a rule notification for an event whose fields hold Slack formatting', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('shows the client’s words as code: none of them formats the notice', async () => {
    const event: EventLike = {
      timestamp: String(NOW - 60_000),
      name: 'experiment_started',
      source: 'web *approved by the release manager*',
      userID: 'u1 ~not this one~',
      metadata: { note: '_leaning_ `x` *bold*', 'a*b': 'c' },
    };
    const { summary, text } = await sweepToNotice(rig, event);

    expect(summary.rules.notified).toBe(1);
    expect(text).toBeDefined();
    // What Slack formats: the text outside code spans (ours: the event's name in bold).
    const formatted = (text ?? '').replace(/`[^`]*`/g, '').replace(/^\*experiment_started\*/, '');
    expect(formatted).not.toMatch(/[*_~]/);
    expect(text).toContain('approved by the release manager');
    expect(text).toContain('not this one');
  });
});
