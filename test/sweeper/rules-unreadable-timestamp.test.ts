/**
 * Review (event rules): an event whose timestamp cannot be read took its neighbour's time in the
 * walk (event-walk.ts `stampOfUnparsable`), so the rules' age limit could not hold it back: a
 * client replaying an old `release_checks_passed` without a timestamp (or with "abc") next to a
 * fresh event got an approval queued. A rule that queues actions now skips such an event (a rule
 * skip with its reason, logged); a notice may still be posted.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  APPROVE_CANARY_RULE,
  drainQueue,
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  rigForTests,
  sortedLog,
} from './harness.js';

const MIN = 60_000;

describe('an event rule over an event with no readable timestamp', () => {
  const rig = rigForTests({ eventCount: 10 });

  async function sweep(stamp: string) {
    const state = await freshState(rig);
    const { logger, lines } = memoryLogger();
    const policy = parsePolicy({
      version: 1,
      notifications: { slackWebhookUrl: rig.slack.url('/channel') },
      sweeper: { eventRules: [{ ...APPROVE_CANARY_RULE, notify: true }] },
    });
    const log: EventLike[] = [
      { timestamp: String(NOW - 2 * MIN), name: 'page_view' },
      {
        timestamp: stamp,
        name: 'release_checks_passed',
        metadata: { triggerID: 'trg_old', phaseID: 'ph_1' },
      },
    ];
    const summary = await makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => log),
      clock: () => NOW,
      logger,
      pageSize: 1000,
    }).run({ now: new Date(NOW), remainingMs: 60_000 });
    const queued = await drainQueue(rig, state.queueUrl);
    return { summary, lines, queued };
  }

  for (const stamp of ['', 'abc']) {
    it(`queues no action for it (timestamp ${JSON.stringify(stamp)}), counts and logs the skip`, async () => {
      const { summary, lines, queued } = await sweep(stamp);
      expect(queued).toEqual([]);
      expect(summary.rules.skipped).toBe(1);
      expect(summary.rules.skippedExamples[0]?.reason).toMatch(/no readable timestamp/);
      expect(
        lines.some((l) => l.message === 'event rule skipped an event' && l.rule === 'approve canary'),
      ).toBe(true);
    });
  }

  it('still posts its notice', async () => {
    const before = rig.slack.posts.length;
    await sweep('abc');
    expect(rig.slack.posts.length).toBe(before + 1);
  });

  it('queues the action for the same event with a fresh timestamp', async () => {
    const { queued, summary } = await sweep(String(NOW - MIN));
    expect(queued.map((b) => b.action)).toEqual(['approve_phase']);
    expect(summary.rules.skipped).toBe(0);
  });
});
