/**
 * Review (notices): "a failed post is never allowed to hold back a run". Event-rule notifications
 * were posted one by one with no regard to the run's deadline: while Slack is slow (each post
 * waits out its 5 s timeout), some dozens of matching events (anyone with a client key can log
 * `experiment_*` events) kept the run posting past its Lambda time. Killed there, the flush's
 * cursor was never saved, so every next run read the same events, posted again and was killed
 * again: the sweeper stuck, the stale sweep never judging. Driven through the real sweeper
 * with an injected clock and a Slack that times out.
 */
import { describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { freshState, makeSweeper, NOW, rigForTests, rulesOnlyPolicy, sortedLog } from './harness.js';

describe('rule notifications while Slack times out', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('stop at the run deadline: the run ends within its time and saves its progress', async () => {
    const state = await freshState(rig);
    const log: EventLike[] = Array.from({ length: 100 }, (_, i) => ({
      timestamp: String(NOW - 600_000 + i * 1000),
      name: `experiment_${i}`,
    }));
    let clock = NOW;
    let posts = 0;
    const sweeper = makeSweeper(rig, state, {
      policy: rulesOnlyPolicy(rig),
      events: sortedLog(() => log),
      clock: () => clock,
      // Slack hangs: each post waits out its 5 s timeout, then fails.
      post: async () => {
        posts++;
        clock += 5_000;
        return { ok: false, reason: 'network', error: 'cannot reach https://hooks.slack.com: TimeoutError' };
      },
    });
    // Less than NOTIFY_CAP_PER_RULE posts of 5 s: the deadline, not the per-rule cap, stops the posting.
    const remainingMs = 60_000;
    const summary = await sweeper.run({ now: new Date(NOW), remainingMs });
    // The Lambda is gone at NOW + remainingMs: nothing may run past it.
    expect(clock - NOW).toBeLessThanOrEqual(remainingMs);
    expect(posts).toBeLessThan(100);
    const { notified, notifyFailed, notifySkipped, notifyCapped } = summary.rules;
    expect(notifySkipped).toBeGreaterThan(0);
    expect(notified + notifyFailed + notifySkipped + notifyCapped).toBe(100);

    // The next run goes on from there: it does not read (and post) the same events again.
    const again = await sweeper.run({ now: new Date(clock), remainingMs });
    expect(again.events.newEvents).toBe(0);
  });
});
