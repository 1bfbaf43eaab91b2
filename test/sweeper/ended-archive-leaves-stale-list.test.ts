/**
 * Review: once the worker has archived a config the stale sweep asked for, every later run
 * still listed it as stale and, in the channel summary, as "queued for archiving" ("queued
 * earlier" counted as queued). A release manager reading the next summary was told an archive
 * that is done was still waiting in the queue. Same for an archive that ended otherwise (here
 * refused by the platform: the config was in an active release pipeline): it is not queued, it
 * ended, and the channel must not say it waits.
 *
 * End to end: the sweeper reads the sandbox's events over HTTP, the worker archives over HTTP,
 * the next day a third config turns stale so the summary changes and is posted again.
 */
import { describe, expect, it } from 'vitest';
import { IN_PROGRESS_STATUS } from '../../src/sandbox/seed.js';
import { benchForFile } from '../worker/fixture.js';
import { addStaleLog, benchSweeper, oneArchiveADayPolicy } from '../worker/stale-archive.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('the stale sweep summary after the archives ended', () => {
  it('does not tell an archived (or refused) config as queued for archiving', async () => {
    const t0 = bench.clock.now.getTime(); // 2026-11-23T10:00:00Z
    const base = oneArchiveADayPolicy(bench);
    const policyInput = {
      ...base,
      actions: { archive_config: { requesters: ['schedule:*'], maxPerDay: 20 } },
    };
    addStaleLog(bench, t0, ['feature_tour', 'api_timeout_ms']);
    // A third config, unused for 29.5 days at t0: stale a day later.
    const third = [...bench.api.sandbox.state.configs.keys()].find(
      (id) => id !== 'feature_tour' && id !== 'api_timeout_ms' && !id.startsWith('checkout'),
    ) as string;
    bench.api.sandbox.addEvents([
      { timestamp: t0 - 29 * DAY - 12 * HOUR, name: 'config_exposure', metadata: { config: third } },
    ]);
    // api_timeout_ms is in an active release pipeline: its archive (forceArchive false) is refused.
    const trigger = [...bench.api.sandbox.state.triggers.values()][0];
    if (!trigger) throw new Error('the sandbox seeds triggers');
    trigger.dynamicConfigID = 'api_timeout_ms';
    trigger.status = IN_PROGRESS_STATUS;

    const sweeper = benchSweeper(bench, policyInput, undefined, {
      slackAllowedOrigins: [bench.slack.origin],
    });
    const worker = bench.worker({ policy: policyInput });
    const first = await sweeper.run({ now: new Date(t0), remainingMs: 60_000 });
    expect(first.stale.queued.sort()).toEqual(['api_timeout_ms', 'feature_tour']);
    for (const record of (await bench.receive()).Records) await bench.run(worker, { Records: [record] });
    expect(bench.api.sandbox.state.configs.get('feature_tour')?.archived).toBe(true);
    expect(bench.api.sandbox.state.configs.get('api_timeout_ms')?.archived).toBe(false);

    // A day later the third config is stale: the summary changes and is posted again.
    const before = bench.slack.posts.length;
    const t1 = t0 + DAY;
    bench.clock.now = new Date(t1);
    bench.api.sandbox.addEvents([
      { timestamp: t1 - HOUR, name: 'config_exposure', metadata: { config: 'checkout_banner' } },
      { timestamp: t1 - HOUR, name: 'page_view' },
    ]);
    const second = await sweeper.run({ now: new Date(t1), remainingMs: 60_000 });
    expect(second.stale.queued).toEqual([third]);
    const summaries = bench.slack.posts
      .slice(before)
      .map((p) => p.body.text ?? '')
      .filter((text) => text.startsWith('*Stale config sweep*'));
    expect(summaries).toHaveLength(1);
    const queuedLine = (summaries[0] ?? '')
      .split('\n')
      .find((line) => line.startsWith('queued for archiving'));
    expect({ queuedLine }).toEqual({ queuedLine: `queued for archiving: \`${third}\`` });
    // What the run says of them: one archived (no longer stale), one ended by the platform's refusal.
    expect(second.stale.stale).not.toContain('feature_tour');
    expect(second.stale.skipped).toContainEqual({ configId: 'feature_tour', reason: 'archived' });
    expect(second.stale.skipped).toContainEqual(
      expect.objectContaining({ configId: 'api_timeout_ms', reason: 'ended earlier' }),
    );
  });
});
