/**
 * Alarms as CloudFormation gets them, against the metric lines the functions write: which EMF
 * metric an alarm reads (namespace, name, every dimension, unit), and how CloudWatch would move
 * its state for a given stream of data points. An alarm that reads a metric under another
 * dimension set or unit than the one emitted watches a series nobody writes: it never fires.
 */
import { expect } from 'vitest';
import { emfProblems } from '../observability/emf.js';
import type { Synthesized } from './synth.js';

/** One metric as an alarm reads it (a plain alarm, or one MetricStat of a math alarm). */
export interface ReadMetric {
  namespace: string;
  metricName: string;
  dimensions: Record<string, unknown>;
  stat: string;
  period: number;
  unit?: string;
}

export interface AlarmProps {
  AlarmDescription: string;
  AlarmActions?: unknown[];
  OKActions?: unknown[];
  ComparisonOperator: string;
  Threshold: number;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number;
  TreatMissingData?: string;
  Namespace?: string;
  MetricName?: string;
  Dimensions?: Array<{ Name: string; Value: unknown }>;
  Statistic?: string;
  Period?: number;
  Unit?: string;
  Metrics?: Array<{
    Id: string;
    Expression?: string;
    ReturnData?: boolean;
    MetricStat?: {
      Metric: { Namespace: string; MetricName: string; Dimensions?: Array<{ Name: string; Value: unknown }> };
      Period: number;
      Stat: string;
      Unit?: string;
    };
  }>;
}

export interface FoundAlarm {
  id: string;
  props: AlarmProps;
  reads: ReadMetric[];
  /** The period the alarm evaluates, in seconds. */
  period: number;
}

const dims = (list: Array<{ Name: string; Value: unknown }> = []) =>
  Object.fromEntries(list.map((d) => [d.Name, d.Value]));

export function alarmsOf(s: Synthesized): FoundAlarm[] {
  return Object.entries(s.template.findResources('AWS::CloudWatch::Alarm')).map(([id, resource]) => {
    const props = resource.Properties as AlarmProps;
    if (props.Metrics) {
      const reads = props.Metrics.filter((m) => m.MetricStat).map((m) => ({
        namespace: m.MetricStat!.Metric.Namespace,
        metricName: m.MetricStat!.Metric.MetricName,
        dimensions: dims(m.MetricStat!.Metric.Dimensions),
        stat: m.MetricStat!.Stat,
        period: m.MetricStat!.Period,
        ...(m.MetricStat!.Unit ? { unit: m.MetricStat!.Unit } : {}),
      }));
      return { id, props, reads, period: Math.max(...reads.map((r) => r.period)) };
    }
    const read: ReadMetric = {
      namespace: props.Namespace ?? '',
      metricName: props.MetricName ?? '',
      dimensions: dims(props.Dimensions),
      stat: props.Statistic ?? '',
      period: props.Period ?? 0,
      ...(props.Unit ? { unit: props.Unit } : {}),
    };
    return { id, props, reads: [read], period: read.period };
  });
}

/** The one alarm that reads `metricName` (in the ConsoleAutopilot namespace or another). */
export function alarmReading(s: Synthesized, metricName: string): FoundAlarm {
  const found = alarmsOf(s).filter((a) => a.reads.some((r) => r.metricName === metricName));
  expect(
    found.map((a) => a.id),
    `alarms reading ${metricName}`,
  ).toHaveLength(1);
  return found[0]!;
}

/** A metric as an EMF line declares it. */
export interface EmittedMetric {
  namespace: string;
  name: string;
  unit: string | undefined;
  dimensions: Record<string, unknown>;
  value: number;
  timestamp: number;
}

/** The metrics in EMF lines (each line checked against the EMF specification first). */
export function emittedMetrics(lines: string[]): EmittedMetric[] {
  const out: EmittedMetric[] = [];
  for (const line of lines) {
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (!doc._aws) continue;
    expect(emfProblems(line), line).toEqual([]);
    const aws = doc._aws as {
      Timestamp: number;
      CloudWatchMetrics: Array<{
        Namespace: string;
        Dimensions: string[][];
        Metrics: Array<{ Name: string; Unit?: string }>;
      }>;
    };
    for (const directive of aws.CloudWatchMetrics)
      for (const set of directive.Dimensions)
        for (const metric of directive.Metrics)
          out.push({
            namespace: directive.Namespace,
            name: metric.Name,
            unit: metric.Unit,
            dimensions: Object.fromEntries(set.map((d) => [d, doc[d]])),
            value: doc[metric.Name] as number,
            timestamp: aws.Timestamp,
          });
  }
  return out;
}

/**
 * The alarm reads exactly what was emitted: same namespace and name, the very same dimension
 * set (CloudWatch matches a series by all of its dimensions), a unit it does not filter out,
 * and a statistic that counts each line (Sum or SampleCount of Count lines).
 */
export function expectReadsEmitted(alarm: FoundAlarm, emitted: EmittedMetric): void {
  const read = alarm.reads.find(
    (r) =>
      r.namespace === emitted.namespace &&
      r.metricName === emitted.name &&
      JSON.stringify(Object.entries(r.dimensions).sort()) ===
        JSON.stringify(Object.entries(emitted.dimensions).sort()),
  );
  expect(
    read,
    `${alarm.id} reads ${JSON.stringify(alarm.reads)}; emitted ${JSON.stringify(emitted)}`,
  ).toBeDefined();
  if (read?.unit !== undefined) expect(read.unit, `${alarm.id} unit`).toBe(emitted.unit);
  expect(['Sum', 'SampleCount'], `${alarm.id} statistic`).toContain(read?.stat);
}

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/**
 * CloudWatch's evaluation of `alarm`, once a minute from `from` to `to` (epoch seconds), over
 * data points (`at`: their timestamp; `arrives`: when CloudWatch has them, later for EMF lines
 * read from the log). `aligned`: the evaluated periods end on multiples of the period (else at
 * the evaluation time); both are simulated by callers, CloudWatch's own alignment being unsaid.
 * Values of several metrics are summed (the alarms' FILL(m, 0) + ... expressions).
 */
export function simulate(
  alarm: FoundAlarm,
  points: Array<{ at: number; arrives?: number; value?: number }>,
  range: { from: number; to: number; aligned: boolean },
): Array<{ t: number; state: AlarmState }> {
  const p = alarm.props;
  const period = alarm.period;
  const needed = p.DatapointsToAlarm ?? p.EvaluationPeriods;
  const breaches = (value: number) => {
    switch (p.ComparisonOperator) {
      case 'GreaterThanOrEqualToThreshold':
        return value >= p.Threshold;
      case 'GreaterThanThreshold':
        return value > p.Threshold;
      case 'LessThanThreshold':
        return value < p.Threshold;
      case 'LessThanOrEqualToThreshold':
        return value <= p.Threshold;
      default:
        throw new Error(`comparison ${p.ComparisonOperator} is not modelled here`);
    }
  };
  const states: Array<{ t: number; state: AlarmState }> = [];
  let state: AlarmState = 'INSUFFICIENT_DATA';
  for (let t = range.from; t <= range.to; t += 60) {
    const end = range.aligned ? Math.floor(t / period) * period : t;
    const windows = Array.from({ length: p.EvaluationPeriods }, (_, i) => {
      const hi = end - i * period;
      const lo = hi - period;
      const seen = points.filter((x) => x.at >= lo && x.at < hi && (x.arrives ?? x.at) <= t);
      if (seen.length === 0) return 'missing' as const;
      return breaches(seen.reduce((sum, x) => sum + (x.value ?? 1), 0))
        ? ('breaching' as const)
        : ('ok' as const);
    });
    const missingAs = p.TreatMissingData ?? 'missing';
    const counted = windows.map((w) =>
      w !== 'missing'
        ? w
        : missingAs === 'breaching'
          ? 'breaching'
          : missingAs === 'notBreaching'
            ? 'ok'
            : 'missing',
    );
    if (counted.filter((w) => w === 'breaching').length >= needed) state = 'ALARM';
    else if (counted.every((w) => w === 'missing'))
      state = missingAs === 'ignore' ? state : 'INSUFFICIENT_DATA';
    else state = 'OK';
    states.push({ t, state });
  }
  return states;
}
