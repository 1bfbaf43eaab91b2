/**
 * A held request the release tick lists as *stuck* (its sends never came back: each copy
 * dead-lettered, say) is never sent back again, so no worker ever decided it again: it never
 * reached its maxDeferHours expiry, nobody was told, and it sat in `held` until the record's own
 * 30-day clean-up, while a CI gate on its id waited. The tick now ends a stuck wait past its
 * expiry itself, as the worker would (denied, rule maxDeferHours), and tells the requester and the
 * channel. The deployed tick (the worker function's entry) on the emulators.
 */
import { describe, expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { listHeld } from '../../src/state/held.js';
import { markReached } from '../../src/state/held-gates.js';
import { writePause } from '../../src/state/pause.js';
import { basePolicy, benchResetEachTest, channelPostsAbout } from './fixture.js';
import { deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

/** The deployed tick at `time`, under the worker's policy (maxDeferHours 72). */
const tick = (time: string) => deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)))({ time });

describe('a stuck held request', () => {
  it('is left alone before its expiry', async () => {
    await holdStuck(bench, 'se-early');
    await tick('2026-11-26T09:59:00Z');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).toContain('se-early');
    expect((await outcomeNow(bench.table, 'se-early')).exitCode).toBeUndefined();
  });

  it('is ended as expired once maxDeferHours has passed, and the channel is told', async () => {
    await holdStuck(bench, 'se-expired');
    const before = bench.slack.posts.length;
    await tick('2026-11-26T10:00:30Z');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('se-expired');
    const gate = await outcomeNow(bench.table, 'se-expired');
    expect(gate).toMatchObject({ exitCode: 3, result: 'denied', rule: 'maxDeferHours' });
    expect(gate.reason).toContain('more than 72 hours ago');
    const told = channelPostsAbout(bench, 'se-expired', before);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('Denied');
    expect(told[0]).toContain('se-expired');
    // Nothing was sent back for it.
    expect((await bench.receive()).Records).toEqual([]);
  });

  it('waits for resume while automation is paused, as the worker holds an expired request then', async () => {
    await holdStuck(bench, 'se-paused');
    const at = new Date('2026-11-26T09:00:00Z');
    await writePause(bench.table, { paused: true, by: 'slack:U0ADMIN', at });
    try {
      await tick('2026-11-26T10:00:30Z');
      expect((await listHeld(bench.table)).map((h) => h.requestId)).toContain('se-paused');
    } finally {
      await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at });
    }
    await tick('2026-11-26T10:01:30Z');
    expect(await outcomeNow(bench.table, 'se-paused')).toMatchObject({
      result: 'denied',
      rule: 'maxDeferHours',
    });
  });

  it('says the change may have been made when an attempt for it may have reached the platform', async () => {
    await holdStuck(bench, 'se-reached');
    await markReached(bench.table, 'se-reached', new Date('2026-11-23T10:20:00Z'));
    const before = bench.slack.posts.length;
    await tick('2026-11-26T10:00:30Z');
    const told = channelPostsAbout(bench, 'se-reached', before);
    expect(told).toHaveLength(1);
    expect(told[0]).not.toContain('Denied');
    expect(told[0]).toContain('check whether the change was made');
  });
});
