/**
 * Exposure events that match nothing the SDKs log (here the policy names `statsig::config_exposure`
 * while the SDKs log `config_exposure`): no exposure of any config is ever recorded, and after
 * `staleAfterDays` every watched config looked stale and was queued for archiving. Now nothing is
 * judged stale while no exposure of any config was recorded in the window, and the channel is told why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  policyWith,
  type Rig,
  sortedLog,
  startRig,
} from './harness.js';

const DAY = 86_400_000;

describe('exposure events that match nothing logged', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 0 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('judge no config stale, and the channel hears why', async () => {
    const state = await freshState(rig);
    const policy = policyWith(rig, (p) => {
      const stale = p.sweeper?.staleConfigs;
      if (!stale) throw new Error('the base policy has staleConfigs');
      stale.configs = ['cfg_a', 'cfg_b'];
      stale.discover = false;
      stale.exposureEvents = [{ name: 'statsig::config_exposure', configIdFrom: 'metadata.config' }];
    });
    // Both configs are in use every day, under an event name the policy does not list.
    const log: EventLike[] = [];
    for (let day = 45; day >= 1; day--)
      for (const config of ['cfg_a', 'cfg_b'])
        log.push({ timestamp: String(NOW - day * DAY), name: 'config_exposure', metadata: { config } });
    const before = rig.slack.posts.length;
    const summary = await makeSweeper(rig, state, {
      policy,
      events: sortedLog(() => log),
      clock: () => NOW,
      // Observation counts from the oldest page's events: ten of them, 41–45 days old.
      pageSize: 10,
    }).run({ now: new Date(NOW), remainingMs: 60_000 });

    expect(summary.stale.queued).toEqual([]);
    expect(summary.stale.skipped.map((s) => [s.configId, s.reason])).toEqual([
      ['cfg_a', 'no exposures recorded'],
      ['cfg_b', 'no exposures recorded'],
    ]);
    expect(await drainQueue(rig, state.queueUrl)).toEqual([]);
    const posted = rig.slack.posts.slice(before).map((p) => JSON.stringify(p.body));
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain('no exposure of any config was recorded within `staleAfterDays`');
  });
});
