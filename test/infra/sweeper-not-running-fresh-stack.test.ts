/**
 * SweeperNotRunning read the sweeper's Invocations alone, missing data counting as "not run". A
 * stack just deployed has no Invocations yet (the schedule's first run is one period after the
 * rule is created), so the alarm went to ALARM at its first evaluation and paged on a healthy,
 * fresh stack; an alarm that pages on every first deploy teaches operators to ignore it.
 *
 * CloudWatch's evaluation of the synthesized alarm is simulated here over its own metrics: the
 * sweeper's invocations, and whatever else it reads to know that the stack is up and has had its
 * first chance to run. A fresh stack stays quiet; a sweeper that never runs, or stops, still pages.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type AlarmState, alarmsOf, type FoundAlarm, type ReadMetric } from './alarm-reading.js';
import { synthesize } from './synth.js';

const SWEEP_MINUTES = 15;
const s = synthesize({ sweepSchedule: String(SWEEP_MINUTES) }, { bundle: false });
afterAll(() => s.cleanup());

const alarm = (): FoundAlarm => {
  const found = alarmsOf(s).filter((a) => a.id.startsWith('SweeperNotRunning'));
  expect(found).toHaveLength(1);
  return found[0]!;
};

type Source = 'sweeperRuns' | 'releaseTicks';
interface Point {
  source: Source;
  at: number;
  arrives: number;
}

/** Which of our data a metric the alarm reads is: the sweeper's invocations, or the release tick rule's firings. */
function sourceOf(read: ReadMetric): Source | undefined {
  const ref = JSON.stringify(Object.values(read.dimensions));
  if (read.namespace === 'AWS/Lambda' && read.metricName === 'Invocations' && ref.includes('Sweeper'))
    return 'sweeperRuns';
  if (read.namespace === 'AWS/Events' && ref.includes('ReleaseTick')) return 'releaseTicks';
  return undefined;
}

/** The alarm's value over one window: a plain metric's sum, or its math expression; undefined: no data. */
function windowValue(a: FoundAlarm, sums: Map<Source, number>): number | undefined {
  const p = a.props;
  if (!p.Metrics) {
    const source = sourceOf(a.reads[0]!);
    return source ? sums.get(source) : undefined;
  }
  const values: Record<string, number | undefined> = {};
  for (const m of p.Metrics.filter((x) => x.MetricStat)) {
    const read = a.reads.find((r) => r.metricName === m.MetricStat!.Metric.MetricName)!;
    const source = sourceOf({
      ...read,
      dimensions: Object.fromEntries((m.MetricStat!.Metric.Dimensions ?? []).map((d) => [d.Name, d.Value])),
    });
    values[m.Id] = source ? sums.get(source) : undefined;
  }
  // A math result exists only where one of its metrics has data.
  if (Object.values(values).every((v) => v === undefined)) return undefined;
  const expression = p.Metrics.find((x) => x.Expression && x.ReturnData !== false)!.Expression!;
  const js = expression
    .replace(/FILL\((\w+),\s*0\)/g, '(v.$1 ?? 0)')
    .replace(/\bAND\b/g, '&&')
    .replace(/\bOR\b/g, '||');
  // The template's own expression, read as JavaScript (FILL, AND and IF only).
  const value = new Function('v', 'IF', `return ${js};`)(values, (c: unknown, a: number, b: number) =>
    c ? a : b,
  ) as number;
  return value;
}

function evaluate(
  a: FoundAlarm,
  points: Point[],
  range: { from: number; to: number; aligned: boolean },
): Array<{ t: number; state: AlarmState }> {
  const p = a.props;
  const period = a.period;
  const breaches = (v: number) =>
    p.ComparisonOperator === 'LessThanThreshold'
      ? v < p.Threshold
      : p.ComparisonOperator === 'GreaterThanOrEqualToThreshold'
        ? v >= p.Threshold
        : p.ComparisonOperator === 'GreaterThanThreshold'
          ? v > p.Threshold
          : (() => {
              throw new Error(p.ComparisonOperator);
            })();
  const states: Array<{ t: number; state: AlarmState }> = [];
  let state: AlarmState = 'INSUFFICIENT_DATA';
  for (let t = range.from; t <= range.to; t += 60) {
    const end = range.aligned ? Math.floor(t / period) * period : t;
    const windows = Array.from({ length: p.EvaluationPeriods }, (_, i) => {
      const hi = end - i * period;
      const sums = new Map<Source, number>();
      for (const x of points)
        if (x.at >= hi - period && x.at < hi && x.arrives <= t)
          sums.set(x.source, (sums.get(x.source) ?? 0) + 1);
      const value = windowValue(a, sums);
      if (value === undefined) return 'missing' as const;
      return breaches(value) ? ('breaching' as const) : ('ok' as const);
    });
    const missingAs = p.TreatMissingData ?? 'missing';
    const counted = windows.map((w) =>
      w !== 'missing' ? w : missingAs === 'breaching' ? 'breaching' : missingAs === 'notBreaching' ? 'ok' : w,
    );
    const needed = p.DatapointsToAlarm ?? p.EvaluationPeriods;
    if (counted.filter((w) => w === 'breaching').length >= needed) state = 'ALARM';
    else if (counted.every((w) => w === 'missing'))
      state = missingAs === 'ignore' ? state : 'INSUFFICIENT_DATA';
    else state = 'OK';
    states.push({ t, state });
  }
  return states;
}

const period = SWEEP_MINUTES * 60;
const deployed = 1_000_000 * 60; // the rules and the alarm created (a minute boundary)
/** The release tick rule fires every minute from a minute after its creation (EventBridge's metric a few minutes late). */
const ticks = (from: number, to: number, lag = 180): Point[] =>
  Array.from({ length: Math.floor((to - from) / 60) }, (_, i) => from + 60 + i * 60).map((at) => ({
    source: 'releaseTicks',
    at,
    arrives: at + lag,
  }));
/** Sweeper runs every period from one period after the schedule's creation, `late` seconds late at most. */
const runs = (from: number, to: number, late: number, lag = 180): Point[] =>
  Array.from(
    { length: Math.floor((to - from) / period) },
    (_, i) => from + (i + 1) * period + (i === 0 ? late : 0),
  )
    .filter((at) => at < to)
    .map((at) => ({ source: 'sweeperRuns', at, arrives: at + lag }));

describe('SweeperNotRunning on a stack just deployed', () => {
  it('stays quiet until the sweeper has had its first chance to run, even a few minutes late', () => {
    const a = alarm();
    const day = 24 * 3600;
    for (const aligned of [true, false])
      for (const late of [0, 60, 240]) {
        const points = [...ticks(deployed, deployed + day), ...runs(deployed, deployed + day, late)];
        const states = evaluate(a, points, { from: deployed, to: deployed + day, aligned });
        expect(
          states.filter((x) => x.state === 'ALARM').map((x) => (x.t - deployed) / 60),
          `aligned ${aligned}, first run ${late}s late: minutes after deploy in ALARM`,
        ).toEqual([]);
      }
  });

  it('still pages a sweeper that never runs from the first deploy on (its schedule disabled, its invocations refused)', () => {
    const a = alarm();
    for (const aligned of [true, false]) {
      const states = evaluate(a, ticks(deployed, deployed + 6 * period), {
        from: deployed,
        to: deployed + 6 * period,
        aligned,
      });
      const fired = states.find((x) => x.state === 'ALARM');
      expect(fired, `aligned ${aligned}`).toBeDefined();
      // Its first chance was one period after the deploy; two more periods of nothing, and a few minutes of lag.
      expect(fired!.t - deployed, `aligned ${aligned}`).toBeLessThanOrEqual(3 * period + 10 * 60);
    }
  });

  it('still pages a sweeper that stops after running for a day', () => {
    const a = alarm();
    const stop = deployed + 24 * 3600 + 7 * 60;
    for (const aligned of [true, false]) {
      const points = [...ticks(deployed, stop + 6 * period), ...runs(deployed, stop, 0)];
      const states = evaluate(a, points, { from: stop - 3600, to: stop + 6 * period, aligned });
      expect(states.filter((x) => x.t < stop && x.state === 'ALARM')).toEqual([]);
      const fired = states.find((x) => x.t >= stop && x.state === 'ALARM');
      expect(fired, `aligned ${aligned}`).toBeDefined();
      expect(fired!.t - stop, `aligned ${aligned}`).toBeLessThanOrEqual(4 * period);
    }
  });

  it('pages the topic and says what to check, and when it cannot see', () => {
    const a = alarm();
    expect(a.props.AlarmActions).toHaveLength(1);
    expect(a.props.OKActions).toEqual(a.props.AlarmActions);
    expect(a.props.AlarmDescription).toMatch(/schedule/);
    expect(a.props.AlarmDescription).toMatch(/ReleaseTickNotRunning/);
  });
});
