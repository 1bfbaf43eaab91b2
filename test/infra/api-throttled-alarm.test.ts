/**
 * The HTTP API's stage throttle (rate and burst) answers requests over it 429 before the webhook
 * runs: Slack shows the person a failure, and nothing counted it. The webhook never saw those
 * requests (no EMF line), the API's only error alarm reads 5xx, and an HTTP API publishes no
 * throttle metric of its own: its `4xx` mixes 429s with the 404s of any scanner and the 401s
 * the webhook answers to unsigned posts. A burst of chat use, or a flood of unsigned posts that
 * uses up the limit, failed every slash command and button without a page.
 *
 * The 429s are counted from the stage's access log (each request's status) by a metric filter,
 * and an alarm reads that metric, its threshold a context value.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { alarmsOf } from './alarm-reading.js';
import { type Synthesized, synthesize } from './synth.js';

let s: Synthesized | undefined;
const synth = (context: Record<string, unknown> = {}): Synthesized => {
  s?.cleanup();
  s = synthesize(context, { bundle: false });
  return s;
};
afterAll(() => s?.cleanup());

interface Filter {
  FilterPattern: string;
  LogGroupName: unknown;
  MetricTransformations: Array<{
    MetricNamespace: string;
    MetricName: string;
    MetricValue: string;
    Dimensions?: Array<{ Key: string; Value: string }>;
  }>;
}

/** The stage's access log line for one request, as API Gateway writes it from the stage's format. */
function accessLogLine(x: Synthesized, values: Record<string, string>): Record<string, string> {
  const stage = Object.values(x.template.findResources('AWS::ApiGatewayV2::Stage'))[0] as {
    Properties: { AccessLogSettings: { Format: string; DestinationArn: unknown } };
  };
  const format = JSON.parse(stage.Properties.AccessLogSettings.Format) as Record<string, string>;
  return Object.fromEntries(Object.entries(format).map(([k, v]) => [k, values[v] ?? `value of ${v}`]));
}

/** CloudWatch Logs' JSON filter `{ $.field = "value" }` (the only form this reading supports). */
function matches(pattern: string, line: Record<string, string>): boolean {
  const m = /^\{\s*\$\.(\w+)\s*=\s*"?([^"\s}]+)"?\s*\}$/.exec(pattern);
  expect(m, `filter pattern ${pattern}`).not.toBeNull();
  return line[m![1]!] === m![2];
}

describe('requests the HTTP API throttles (429, before the webhook runs)', () => {
  it('are counted from the access log and page the topic, by default at the first one in 5 minutes', () => {
    const x = synth();
    const stage = Object.values(x.template.findResources('AWS::ApiGatewayV2::Stage'))[0] as {
      Properties: { AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [string, string] } } };
    };
    const accessLogGroup = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    const filters = Object.values(x.template.findResources('AWS::Logs::MetricFilter')).map(
      (r) => (r as { Properties: Filter }).Properties,
    );
    const onAccessLog = filters.filter(
      (f) => JSON.stringify(f.LogGroupName) === JSON.stringify({ Ref: accessLogGroup }),
    );
    expect(onAccessLog, 'a metric filter on the API access log').toHaveLength(1);
    const filter = onAccessLog[0]!;
    const apiId = 'a1b2c3d4e5';
    const throttled = accessLogLine(x, { '$context.status': '429', '$context.apiId': apiId });
    const answered = accessLogLine(x, { '$context.status': '200', '$context.apiId': apiId });
    const refused = accessLogLine(x, { '$context.status': '401', '$context.apiId': apiId });
    expect(matches(filter.FilterPattern, throttled)).toBe(true);
    expect(matches(filter.FilterPattern, answered)).toBe(false);
    expect(matches(filter.FilterPattern, refused)).toBe(false);

    const [transformation] = filter.MetricTransformations;
    const alarms = alarmsOf(x).filter((a) =>
      a.reads.some(
        (r) => r.namespace === transformation!.MetricNamespace && r.metricName === transformation!.MetricName,
      ),
    );
    expect(alarms.map((a) => a.id)).toHaveLength(1);
    const alarm = alarms[0]!;
    // The alarm reads the series the filter writes: the same dimensions, from this stack's API.
    const apiLogicalId = x.logicalId('Api');
    const read = alarm.reads[0]!;
    const written = Object.fromEntries(
      (transformation!.Dimensions ?? []).map((d) => [d.Key, d.Value.replace(/^\$\./, '')]),
    );
    expect(Object.keys(read.dimensions).sort()).toEqual(Object.keys(written).sort());
    for (const [key, field] of Object.entries(written)) {
      expect(throttled[field], `access log field ${field}`).toBe(apiId);
      expect(read.dimensions[key]).toEqual({ Ref: apiLogicalId });
    }
    expect(read.stat).toBe('Sum');
    expect(read.period).toBe(300);
    expect(alarm.props).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.AlarmDescription).toContain('429');
    expect(alarm.props.AlarmDescription).toMatch(/rateLimit|burst/);
  });

  it('take their threshold from the context value alarmApiThrottledPer5Min', () => {
    const x = synth({ alarmApiThrottledPer5Min: '12' });
    const alarm = alarmsOf(x).find((a) => a.id.startsWith('WebhookThrottled'));
    expect(alarm?.props.Threshold).toBe(12);
    expect(() => synth({ alarmApiThrottledPer5Min: '0' })).toThrow(/alarmApiThrottledPer5Min/);
  });
});
