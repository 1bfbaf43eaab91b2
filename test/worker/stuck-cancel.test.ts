/**
 * `/autopilot cancel` of a held request the tick lists as *stuck*. The webhook answers
 * "cancelled … told within a minute"; the worker is the one
 * that ends it (the webhook may not), and no copy of a stuck wait comes back to the worker: the
 * release tick ends it itself, tells the channel (also one named by the policy file) and counts a
 * notice it could not deliver.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import type { Policy } from '../../src/policy/schema.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from './fixture.js';
import { releaseDeps } from './questions.js';
import { cancelFromSlack, deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();
let tick: ReleaseDeps;
beforeAll(() => {
  tick = releaseDeps(bench);
});

/** A request held for a window whose three sends never came back, then cancelled from Slack. */
async function stuckAndCancelled(requestId: string): Promise<Policy> {
  await holdStuck(bench, requestId, { triggerId: 'trg_stuck', requesterId: 'x', rule: 'r', reason: 'r' });
  // An operator cancels it from Slack, as the webhook does it; the reply promises an ending.
  return cancelFromSlack(bench, requestId);
}

describe('cancelling a stuck held request', () => {
  it('ends it as cancelled within a minute, as the cancel reply promises', async () => {
    await stuckAndCancelled('rv-stuck-1');
    const tock = await releaseHeld(tick, new Date('2026-11-23T11:00:30Z'));
    const final = await readFinal(bench.table, 'rv-stuck-1');
    const left = (await listHeld(bench.table)).filter((h) => h.requestId === 'rv-stuck-1');
    expect({ released: tock.released, ended: tock.ended, final: final?.result, held: left.length }).toEqual({
      released: [],
      ended: ['rv-stuck-1'],
      final: 'cancelled',
      held: 0,
    });
    expect(final?.reason).toContain('cancelled by slack:U0ADMIN');
    // Nothing was sent back for it: the queue stays empty.
    expect((await bench.receive()).Records).toEqual([]);
  });

  it('tells the channel (policy notifications.slackWebhookUrl, still supported), as the cancel reply promises', async () => {
    const policy = await stuckAndCancelled('rv-stuck-2');
    const before = bench.slack.posts.length;
    await deployedTick(bench, policy)({ time: '2026-11-23T11:00:30Z' });
    expect((await readFinal(bench.table, 'rv-stuck-2'))?.result).toBe('cancelled');
    // The worker tells the channel of a cancel through the policy's URL when the secret has none
    // (notificationsUrl); the tick's ending must too.
    expect(bench.slack.posts.slice(before).map((p) => p.path)).toContain('/services/channel');
  });

  it('counts SlackPostsFailed when the channel notice cannot be delivered', async () => {
    const policy = await stuckAndCancelled('rv-stuck-3');
    const lines: string[] = [];
    const at = Date.parse('2026-11-23T11:00:00Z');
    const metrics = createMetrics({ service: 'worker', sink: (l) => lines.push(l), now: () => at });
    // Slack is down: the channel notice of the cancel is not delivered.
    bench.slack.setStatus(500);
    const before = bench.slack.posts.length;
    try {
      await deployedTick(bench, policy, metrics)({ time: '2026-11-23T11:00:30Z' });
    } finally {
      bench.slack.setStatus(200);
    }
    expect((await readFinal(bench.table, 'rv-stuck-3'))?.result).toBe('cancelled');
    expect(bench.slack.posts.slice(before).map((p) => p.path)).toContain('/services/channel');
    const failed = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => 'SlackPostsFailed' in l);
    expect(failed.length).toBeGreaterThanOrEqual(1);
  });
});
