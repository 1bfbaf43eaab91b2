/**
 * A stale sweep's archive over `actions.archive_config.maxPerDay` waits for the next day, unless
 * that is past its expiry (maxDeferHours): then it is denied at once ("would wait until …, but the
 * request expires …"), and the sweep asks for it again by itself a day later while the config stays
 * unused (src/sweeper/stale.ts). That denial did not say so, nor how to stop it, though the
 * expiry of a held sweep archive does (src/policy/decide.ts `afterExpiry`); it now says the same,
 * from the same words. End to end: the sweeper over the sandbox's events, the worker on real SQS
 * events, on the bench's clock (Monday 10:00 UTC: the day ends 14 hours later).
 */
import { describe, expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { basePolicy, benchForEachTest } from './fixture.js';
import { addStaleLog, benchSweeper } from './stale-archive.js';

const bench = benchForEachTest({ sandbox: { eventCount: 0 } });

describe("the stale sweep's archive over maxPerDay, past its expiry by the next day", () => {
  it('tells the channel the sweep asks again and how to stop it', async () => {
    const t0 = bench.clock.now.getTime();
    const [a, b] = ['feature_tour', 'api_timeout_ms'];
    const base = basePolicy(bench.slack.origin);
    const policy = {
      ...base,
      approvals: { ...base.approvals, maxDeferHours: 12 },
      actions: {
        ...base.actions,
        archive_config: { ...base.actions!.archive_config!, maxPerDay: 1 },
      },
      sweeper: {
        staleConfigs: { configs: [a, b], staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
      },
    };
    addStaleLog(bench, t0, [a, b]);
    const queued = (await benchSweeper(bench, policy).run({ now: new Date(t0), remainingMs: 60_000 })).stale
      .queued;
    expect([...queued].sort()).toEqual([a, b].sort());
    const before = bench.slack.posts.length;
    const event = await bench.receive();
    expect(event.Records).toHaveLength(2);
    await bench.run(bench.worker({ policy }), event);

    // One archive takes the day's unit; the other would wait for midnight, past its 12 hours.
    const ids = event.Records.map((r) => JSON.parse(r.body).requestId as string);
    const ends = await Promise.all(ids.map(async (id) => (await readAudit(bench.table, id)).at(-1)));
    expect(ends.map((e) => e?.result).sort()).toEqual(['archived', 'denied']);
    const denied = ends.find((e) => e?.result === 'denied');
    expect(denied).toMatchObject({ rule: 'maxDeferHours' });
    expect(denied?.reason).toContain('but the request expires');

    const told = JSON.stringify(
      bench.slack.posts
        .slice(before)
        .map((p) => String(p.body.text))
        .filter((text) => text.includes('Denied')),
    );
    expect(told).toContain('asks for it again');
    expect(told).toContain('actions.archive_config.protect');
    expect(told).not.toContain('send a new request');
  });
});
