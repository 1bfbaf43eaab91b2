/**
 * README "What it costs at rest" said "The EMF metrics cost nothing at rest", but the sweeper
 * sends metrics on every scheduled run whatever the traffic, and CloudWatch bills each custom
 * metric (name and dimension combination) that receives data in a month, $0.30 a month for one
 * active all month. So the figure under-stated the bill. Here the real sweeper (its Console
 * client wired as in production, so its reads of the log are measured) runs quiet runs over the
 * emulators and the sandbox with the shipped policy and with no stale sweep, the release tick
 * runs with nothing held (its entry, as EventBridge invokes it: each tick sends its heartbeat), and
 * README must name exactly the metrics they send and price them.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockOf } from '../../src/console/rate-limiter.js';
import { createMetrics, METRIC_CATALOGUE } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import type { SecretsProvider } from '../../src/secrets/secrets.js';
import { consoleClientFor } from '../../src/wiring/from-env.js';
import { releaseHandler } from '../../src/worker/worker.js';
import { freshState, makeSweeper, memoryLogger, NOW, type Rig, startRig } from '../sweeper/harness.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const shipped = JSON.parse(
  readFileSync(new URL('../../policy.json', import.meta.url), 'utf8'),
) as PolicyInput;
const SCHEDULE = 15 * 60_000;

const secrets: SecretsProvider = {
  async get() {
    return { consoleApiKey: 'sandbox-key', slackSigningSecret: '' };
  },
  async refresh() {
    return false;
  },
};

/** Each distinct metric (name and dimensions: what CloudWatch bills) in EMF lines. */
function billedMetrics(lines: string[]): string[] {
  const metrics = new Set<string>();
  for (const line of lines) {
    const doc = JSON.parse(line) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> };
    };
    for (const directive of doc._aws.CloudWatchMetrics)
      for (const metric of directive.Metrics)
        for (const dims of directive.Dimensions)
          metrics.add(`${metric.Name}{${dims.map((d) => `${d}=${String(doc[d])}`).join(',')}}`);
  }
  return [...metrics].sort();
}

describe('metrics sent with no traffic', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 50 });
  });
  afterAll(async () => {
    await rig.close();
  });

  /** The metrics a sweeper with `policy` and the release tick send over an hour of quiet runs. */
  async function atRest(policy: PolicyInput): Promise<string[]> {
    const state = await freshState(rig);
    let clockNow = NOW;
    const lines: string[] = [];
    const metrics = createMetrics({ service: 'sweeper', now: () => clockNow, sink: (l) => lines.push(l) });
    const env = { CONSOLE_API_BASE_URL: rig.sandbox.url };
    const events = consoleClientFor(
      'sweeper',
      env,
      secrets,
      { maxRetries: 0, clock: clockOf(() => clockNow) },
      metrics,
    ).events;
    const sweeper = makeSweeper(rig, state, {
      policy: parsePolicy(policy),
      events,
      metrics,
      clock: () => clockNow,
    });
    // The first run reads the log's history; the quiet runs after it are what "at rest" costs.
    await sweeper.run({ now: new Date(NOW) });
    lines.length = 0;
    for (let at = NOW + SCHEDULE; at <= NOW + 4 * SCHEDULE; at += SCHEDULE) {
      clockNow = at;
      const summary = await sweeper.run({ now: new Date(at) });
      expect(summary.events.newEvents).toBe(0);
    }
    // The worker's one-minute release tick with nothing held.
    const tickLines: string[] = [];
    const tickMetrics = createMetrics({
      service: 'worker',
      now: () => clockNow,
      sink: (l) => tickLines.push(l),
    });
    const { logger } = memoryLogger();
    const tick = {
      table: state.table,
      sqs: rig.emulators.sqs,
      queueUrl: state.queueUrl,
      logger,
      metrics: tickMetrics,
    };
    const release = releaseHandler(tick);
    for (let minute = 0; minute < 3; minute++)
      await release({ time: new Date(clockNow + minute * 60_000).toISOString() });
    return billedMetrics([...lines, ...tickLines]);
  }

  it('are the ones README prices in "What it costs at rest"', async () => {
    const withSweep = await atRest(shipped);
    const { staleConfigs: _off, ...withoutStale } = shipped.sweeper ?? {};
    const withoutSweep = await atRest({ ...shipped, sweeper: withoutStale });
    expect(withoutSweep.every((m) => withSweep.includes(m))).toBe(true);
    // Every one is the sweeper's (one Service dimension), but the tick's heartbeat, which it
    // sends with nothing to do too (the ReleaseTickNotRunning alarm reads it).
    expect(withSweep.filter((m) => !m.endsWith('{Service=sweeper}'))).toEqual([
      'ReleaseTicks{Service=worker}',
    ]);

    const costs = readme.slice(readme.indexOf('### What it costs at rest'));
    const line =
      /the EMF metrics sent whatever the traffic[^$]*?(\d+)–(\d+)\s+custom\s+metrics\s+\$(\d+\.\d\d)–(\d+\.\d\d)/.exec(
        costs,
      );
    expect(line, 'the metrics line of "What it costs at rest"').not.toBeNull();
    const named = [...line![0].matchAll(/`([A-Z][A-Za-z]+)`/g)]
      .map((m) => m[1]!)
      .filter((name) => name in METRIC_CATALOGUE)
      .map((name) => `${name}{Service=${name === 'ReleaseTicks' ? 'worker' : 'sweeper'}}`)
      .sort();
    expect(named).toEqual(withSweep);
    expect(Number(line![1])).toBe(withoutSweep.length);
    expect(Number(line![2])).toBe(withSweep.length);
    expect(Number(line![3])).toBeCloseTo(0.3 * withoutSweep.length, 2);
    expect(Number(line![4])).toBeCloseTo(0.3 * withSweep.length, 2);
    expect(costs.slice(0, costs.indexOf('\n### ', 10))).not.toMatch(/metrics cost nothing/);
  }, 60_000);
});
