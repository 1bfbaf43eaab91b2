/**
 * The stale summary posted to Slack: config ids come from exposure events when discovery is
 * on (any client SDK writes them), so they are escaped wherever the text lists them.
 */
import { describe, expect, it } from 'vitest';
import { emptySummary, staleNotification } from '../../src/sweeper/summary.js';

const now = new Date('2026-11-22T03:00:00Z');

describe('the stale summary text', () => {
  it('escapes config ids in every list, so an id cannot mention the channel or plant a link', () => {
    const hostile = ['<!channel>', '<https://evil.example/login|Re-authenticate>', 'a&b'];
    const summary = emptySummary(now);
    summary.stale = {
      judged: true,
      dryRun: false,
      stale: hostile,
      queued: [hostile[0] as string],
      wouldQueue: [hostile[1] as string],
      skipped: [
        { configId: hostile[2] as string, reason: 'grace' },
        { configId: hostile[1] as string, reason: 'queued earlier' },
      ],
    };
    const text = staleNotification(summary);
    expect(text).not.toMatch(/[<>]/);
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('&lt;https://evil.example/login|Re-authenticate&gt;');
    expect(text).toContain('skipped (grace): `a&amp;b`');
  });
});
