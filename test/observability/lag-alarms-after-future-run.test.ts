/**
 * A run at a far-future time (a console test event naming 2030, before the handler refused such
 * times: 7167ede) read the log up to "now" and judged the stale sweep, so it wrote the cursor's
 * `caughtUpAt` and the stale sweep's last judgement at 2030. Since 7167ede the real runs after it
 * go on (the cursor "supersedes no run"), but those two times stayed ahead of the clock: a
 * sweeper that then fell behind reported SweeperLag 0 (never more behind than "since it last
 * caught up", a negative age clamped to 0) and StaleJudgementAge 0 (not judged "since 2030") on
 * every run until 2030. SweeperLagging and StaleSweepNotJudging, read from the synthesized
 * template, never fired while event rules acted hours late and no stale config was judged.
 * The sweeper's scheduled handler on the emulators; its EMF lines against the alarms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import { alarmReading, emittedMetrics, expectReadsEmitted, simulate } from '../infra/alarm-reading.js';
import { type Synthesized, synthesize } from '../infra/synth.js';
import {
  APPROVE_CANARY_RULE,
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  type Rig,
  startRig,
} from '../sweeper/harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');
/** Past the stale sweep's alarm (6 hours without judging). */
const END = NOW + 8 * HOUR;

let s: Synthesized;
let rig: Rig;
beforeAll(async () => {
  s = synthesize({}, { bundle: false });
  rig = await startRig({ eventCount: 10 });
}, 120_000);
afterAll(async () => {
  s?.cleanup();
  await rig?.close();
});

describe('a cursor written by a run at a far-future time', () => {
  it('does not keep SweeperLagging and StaleSweepNotJudging quiet while the sweeper falls behind', async () => {
    const state = await freshState(rig);
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: {
        eventOrder: 'oldest-first',
        eventRules: [APPROVE_CANARY_RULE],
        staleConfigs: { discover: true, dryRun: true },
      },
    });
    const log: EventLike[] = [];
    const logAt = (t: number) =>
      log.push({
        timestamp: String(t),
        name: 'release_checks_passed',
        metadata: { triggerID: `trg_${log.length}`, phaseID: 'ph_1' },
      });
    for (let t = NOW - 30 * MIN; t < NOW; t += 5 * MIN) logAt(t);

    // Each page read takes the run past its deadline: a run reads one page of 10, then stops for time.
    let clockNow = NOW;
    const slowLog: EventsSource = {
      async list({ page, limit }) {
        clockNow += 2 * MIN;
        const sorted = [...log].sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
        const data = sorted.slice((page - 1) * limit, page * limit);
        return { data, pagination: { itemsPerPage: limit, pageNumber: page, totalItems: sorted.length } };
      },
    };
    const lines: string[] = [];
    const sweeper = makeSweeper(rig, state, {
      policy,
      events: slowLog,
      pageSize: 10,
      clock: () => clockNow,
      logger: memoryLogger().logger,
      metrics: createMetrics({ service: 'sweeper', now: () => clockNow, sink: (line) => lines.push(line) }),
    });
    // What the handler did with such an invocation before 7167ede: a run at its time.
    const future = await sweeper.run({ now: new Date(FUTURE), remainingMs: 10 * MIN });
    expect(future.events.caughtUp).toBe(true);
    lines.length = 0;

    // From now on the platform logs 30 events a quarter-hour, more than a run reads (10 a run).
    const handler = sweeperHandler(sweeper);
    const runs: number[] = [];
    let logged = NOW;
    for (let at = NOW + 15 * MIN; at <= END; at += 15 * MIN) {
      for (; logged < at; logged += 30_000) logAt(logged);
      clockNow = at;
      const summary = await handler(
        { time: new Date(at).toISOString() },
        { getRemainingTimeInMillis: () => 60_000 },
      );
      expect(summary.stop).toBe('time');
      runs.push(at);
    }

    const emitted = emittedMetrics(lines);
    for (const [metric, alarmOf] of [
      ['SweeperLag', 'SweeperLagging'],
      ['StaleJudgementAge', 'StaleSweepNotJudging'],
    ] as const) {
      const alarm = alarmReading(s, metric);
      expect(alarm.id.startsWith(alarmOf)).toBe(true);
      const points = emitted.filter((m) => m.name === metric);
      expect(points).toHaveLength(runs.length);
      for (const point of points)
        expectReadsEmitted({ ...alarm, reads: alarm.reads.map((r) => ({ ...r, stat: 'Sum' })) }, point);
      const states = simulate(
        alarm,
        points.map((p) => ({ at: p.timestamp / 1000, value: p.value })),
        { from: (NOW + 15 * MIN) / 1000, to: (END + 5 * MIN) / 1000, aligned: true },
      );
      // Eight hours in, the sweeper is hours behind the log (and the stale sweep has not judged
      // since the burst began): its alarm is in ALARM by the end.
      expect(states.at(-1)?.state, `${metric}: ${points.map((p) => p.value).join(', ')}`).toBe('ALARM');
    }
  }, 120_000);
});
