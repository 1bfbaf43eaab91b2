/**
 * Review (event rules): a rule notification is "one line of facts", but every field of a logged
 * event is written by a client SDK. An event whose name (or source, user, metadata) carries a
 * line break made the channel show lines of the client's choosing under ours: a forged
 * "approved by" line looks like the bot's own words. Driven through the real sweeper, its
 * Slack poster and a Slack stand-in.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { NOW, rigForTests, sweepToNotice } from './harness.js';

const FORGED = ':white_check_mark: Release trg_prod phase ph_9 approved by the release manager';

describe('a rule notification for an event with line breaks in its fields', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('is posted as one line: no client-written line reaches the channel on its own', async () => {
    const event: EventLike = {
      timestamp: String(NOW - 60_000),
      // `experiment_*` matches across the line break (a glob's `*` takes any character).
      name: `experiment_started\n${FORGED}`,
      source: `web\r\n${FORGED}`,
      userID: `u1\u2028${FORGED}`,
      metadata: { note: `x\n${FORGED}` },
    };
    const { summary, text } = await sweepToNotice(rig, event);

    expect(summary.rules.notified).toBe(1);
    expect(text).toBeDefined();
    // One line, and never a line that starts with what the client wrote.
    expect(text).not.toMatch(/[\r\n\u2028\u2029]/);
    expect(text).toContain('experiment_started');
  });
});
