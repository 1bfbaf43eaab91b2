/**
 * Review (event rules): a rule notification quotes what a client logged. Control characters were
 * taken out, but not Unicode's invisible ones: a right-to-left override in an event's name turned
 * the rest of the line around in the reader's client (the rule's name with it), and a zero-width
 * space let `experiment_start\u200Bed` pass for the real `experiment_started`. Driven through the
 * real sweeper, its Slack poster and a Slack stand-in.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { NOW, rigForTests, sweepToNotice } from './harness.js';

/** Bidi embeddings, overrides, isolates and marks; zero-width spaces, joiners and the BOM. */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;

describe('a rule notification for an event with invisible characters in its fields', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('shows them, so nothing is reordered and no name passes for another', async () => {
    const event: EventLike = {
      timestamp: String(NOW - 60_000),
      name: 'experiment_start\u200bed',
      source: 'web\u202edevorppa',
      userID: 'u1\u2066\u200d',
      metadata: { note: 'x\ufeff\u2067y\u202c' },
    };
    const { summary, text } = await sweepToNotice(rig, event);

    expect(summary.rules.notified).toBe(1);
    expect(text).toBeDefined();
    expect(text).not.toMatch(INVISIBLE);
    // Not the real event's name: the reader sees that something is in it.
    expect(text).not.toContain('*experiment_started*');
    expect(text).toContain('experiment');
  });
});
