/**
 * A stale sweep's archive held by the worker (over `maxPerDay`) is decided again when it is
 * released, under the policy deployed by then. An operator who turns the sweep off (removes
 * `sweeper.staleConfigs`), or takes the config out of `staleConfigs.configs` (discover off), has
 * said the sweep must not archive it: the sweeper no longer judges it ("not in policy"), yet the
 * worker archived it the next day, because nothing in the decision asked whether the policy still
 * asks for that sweep. End to end: the sweeper over the sandbox's events, the worker on real SQS
 * events, the release tick.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { basePolicy, benchForEachTest } from './fixture.js';
import { addStaleLog, benchSweeper, releaseTick } from './stale-archive.js';

const bench = benchForEachTest({ sandbox: { eventCount: 0 } });

describe.each([
  ['the stale sweep is turned off', (p: PolicyInput) => delete p.sweeper],
  [
    'the config is taken out of staleConfigs.configs',
    (p: PolicyInput) => {
      const stale = p.sweeper?.staleConfigs;
      if (stale) stale.configs = [];
    },
  ],
])('a held stale-config archive, after %s', (_label, change) => {
  it('is not executed when released', async () => {
    const t0 = bench.clock.now.getTime(); // 2026-11-23T10:00:00Z
    const [a, b] = ['feature_tour', 'api_timeout_ms'];
    const policyInput: PolicyInput = {
      ...basePolicy(bench.slack.origin),
      actions: { archive_config: { requesters: ['schedule:*'], maxPerDay: 1 } },
      sweeper: {
        staleConfigs: { configs: [a, b], staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
      },
    };
    addStaleLog(bench, t0, [a, b]);
    const sweeper = benchSweeper(bench, policyInput);
    const first = await sweeper.run({ now: new Date(t0), remainingMs: 60_000 });
    expect(first.stale.queued.sort()).toEqual([a, b].sort());
    const before = bench.worker({ policy: policyInput });
    for (const record of (await bench.receive()).Records) await bench.run(before, { Records: [record] });
    const held = (await listHeld(bench.table)).find((h) => h.requestId.startsWith('stale:'));
    expect(held?.why).toBe('limit');

    // The operator changes the policy (a deploy): the sweep must not archive this config.
    const after = structuredClone(policyInput);
    change(after);
    const worker = bench.worker({ policy: after });
    const nextDay = new Date('2026-11-24T00:00:30Z');
    bench.clock.now = nextDay;
    const tick = releaseTick(bench);
    expect((await releaseHeld(tick, nextDay)).released).toContain(held?.requestId);
    bench.clock.now = new Date(nextDay.getTime() + 5_000);
    await bench.run(worker, await bench.receive());
    const final = await readFinal(bench.table, held?.requestId as string);
    expect(final?.result).toBe('denied');
    expect(final?.rule).toBe('sweeper.staleConfigs');
  });
});
