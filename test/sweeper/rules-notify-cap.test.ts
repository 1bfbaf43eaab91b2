/**
 * Review (notices): event-rule notifications had no per-run cap. A client logging
 * `experiment_started` in a loop (anyone with a client key can) made the sweeper post one notice
 * per event against Slack's ~1 post a second: most failed (SlackPostsFailing paged), the run spent
 * its time posting, and the one notice that mattered was buried among thousands. Now each rule
 * posts at most NOTIFY_CAP_PER_RULE notices a run; the rest are counted (`rules.notifyCapped`),
 * marked as handled (never posted by a later run, also after a crash) and summed up in one post.
 * Driven through the real sweeper, an injected clock and a Slack stand-in that records posts.
 */
import { describe, expect, it } from 'vitest';
import { NOTIFY_CAP_PER_RULE } from '../../src/sweeper/notices.js';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  policyWith,
  type Rig,
  rigForTests,
  sortedLog,
} from './harness.js';

const FLOOD = 300;

/** A client logging `experiment_started` in a loop, and one deploy that people must hear about. */
function floodLog(): EventLike[] {
  const flood = Array.from({ length: FLOOD }, (_, i) => ({
    timestamp: String(NOW - 600_000 + i * 1000),
    name: 'experiment_started',
    userID: `u${i}`,
  }));
  return [...flood, { timestamp: String(NOW - 1_000), name: 'deploy_finished', source: 'ci' }];
}

const floodPolicy = (rig: Rig) =>
  policyWith(rig, (p) => {
    delete p.sweeper?.staleConfigs;
    p.sweeper?.eventRules?.push({ name: 'deploys', match: { name: 'deploy_finished' }, notify: true });
  });

describe('a flood of events matching a notify rule', () => {
  const rig = rigForTests({ eventCount: 0 });

  it('posts at most the cap per rule and run, sums up the rest in one post, and still posts the other rule', async () => {
    const state = await freshState(rig);
    rig.slack.posts.length = 0;
    const { logger, lines } = memoryLogger();
    const summary = await makeSweeper(rig, state, {
      policy: floodPolicy(rig),
      events: sortedLog(floodLog),
      clock: () => NOW,
      logger,
      // Several flushes in one run: the cap is the run's, not a flush's.
      flushEvery: 100,
    }).run({ now: new Date(NOW), remainingMs: 120_000 });

    const texts = rig.slack.posts.map((p) => p.body.text ?? '');
    const floodNotices = texts.filter((t) => t.startsWith('*experiment_started*'));
    expect(floodNotices).toHaveLength(NOTIFY_CAP_PER_RULE);
    expect(texts.filter((t) => t.includes('rule "deploys"'))).toHaveLength(1);
    const over = FLOOD - NOTIFY_CAP_PER_RULE;
    const overflow = texts.filter((t) => t.includes('more'));
    expect(overflow).toHaveLength(1);
    expect(overflow[0]).toContain(
      `${over} more \`experiment_started\` events matched rule "tell the channel" this run`,
    );
    expect(texts).toHaveLength(NOTIFY_CAP_PER_RULE + 2);

    expect(summary.rules.notified).toBe(NOTIFY_CAP_PER_RULE + 1);
    expect(summary.rules.notifyCapped).toBe(over);
    expect(summary.events.flushes).toBeGreaterThan(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', rule: 'tell the channel', cap: NOTIFY_CAP_PER_RULE }),
    );
  });

  it('marks the events over the cap as handled: a rerun after a crash posts none of them', async () => {
    const state = await freshState(rig);
    rig.slack.posts.length = 0;
    let crash = true;
    const sweeper = makeSweeper(rig, state, {
      policy: floodPolicy(rig),
      events: sortedLog(floodLog),
      clock: () => NOW,
      hooks: {
        onStep(step) {
          // After the marks, before the cursor: the next run reads the same events again.
          if (crash && step === 'last-seen') throw new Error('crash');
        },
      },
    });
    await expect(sweeper.run({ now: new Date(NOW), remainingMs: 120_000 })).rejects.toThrow('crash');
    crash = false;
    const before = rig.slack.posts.length;
    const again = await sweeper.run({ now: new Date(NOW), remainingMs: 120_000 });
    expect(again.events.newEvents).toBe(FLOOD + 1);
    expect(rig.slack.posts.slice(before)).toEqual([]);
    expect(again.rules.notified + again.rules.notifyCapped).toBe(0);
  });
});
