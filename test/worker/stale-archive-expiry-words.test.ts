/**
 * A stale sweep's archive that waits past maxDeferHours (held by a pause, over `maxPerDay`, or while
 * the sweeper's reading is behind) is denied as expired, and the sweep asks for it again by itself
 * a day later while the config stays unused (src/sweeper/stale.ts; README "Sweeper"). The denial
 * told the channel to "send a new request if it is still wanted": nobody needs to, and it did not
 * say what people want to know, that the archive comes back and how to stop it. For the sweep's
 * requests the expiry now says that it asks again and how to stop it (`protect`). End to end: the
 * sweeper over the sandbox's events, the worker on real SQS events, the release tick.
 */
import { describe, expect, it } from 'vitest';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { releaseHeld } from '../../src/worker/release.js';
import { basePolicy, benchForEachTest } from './fixture.js';
import { addStaleLog, benchSweeper, releaseTick } from './stale-archive.js';

const HOUR = 3_600_000;

const bench = benchForEachTest({ sandbox: { eventCount: 0 } });

describe("the stale sweep's archive, expired while it waited", () => {
  it('tells the channel the sweep asks again and how to stop it, not to send a new request', async () => {
    const t0 = bench.clock.now.getTime();
    const [a, b] = ['feature_tour', 'api_timeout_ms'];
    const policy = {
      ...basePolicy(bench.slack.origin),
      sweeper: {
        staleConfigs: { configs: [a], staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
      },
    };
    addStaleLog(bench, t0, [a, b]);
    expect(
      (await benchSweeper(bench, policy).run({ now: new Date(t0), remainingMs: 60_000 })).stale.queued,
    ).toEqual([a]);
    // Automation is paused before the worker gets to it: the archive is held.
    await writePause(bench.table, { paused: true, by: 'slack:U0ADMIN', at: new Date(t0) });
    await bench.run(bench.worker({ policy }), await bench.receive());
    const [held] = await listHeld(bench.table);
    expect(held?.why).toBe('paused');

    // Resumed 73 hours later (maxDeferHours 72): the tick sends it back, the worker denies it as expired.
    bench.clock.now = new Date(t0 + 73 * HOUR);
    await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at: bench.clock.now });
    expect((await releaseHeld(releaseTick(bench), bench.clock.now)).released).toEqual([held!.requestId]);
    const before = bench.slack.posts.length;
    await bench.run(bench.worker({ policy }), await bench.receive());
    const told = JSON.stringify(bench.slack.posts.slice(before).map((p) => p.body.text));
    expect(told).toContain('maxDeferHours');
    expect(told).not.toContain('send a new request');
    expect(told).toContain('asks for it again');
    expect(told).toContain('actions.archive_config.protect');
  });
});
