/**
 * the SweeperLagging alarm reads a metric the sweeper emits once per run (every
 * `sweepSchedule` minutes, default 15) over 5-minute periods, one evaluation period, with
 * missing data treated as not breaching. Between two runs of a lagging sweeper there are
 * periods with no data point, so the alarm goes back to OK (and notifies OK) while the sweeper
 * is still behind, then to ALARM again at the next run: it flaps on every run instead of
 * staying in ALARM while the sweeper lags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(() => s?.cleanup());

type AlarmProps = {
  Period?: number;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number;
  TreatMissingData?: string;
  MetricName?: string;
  OKActions?: unknown[];
};

describe('SweeperLagging', () => {
  it('stays in ALARM between two runs of a sweeper that is still behind (default 15-minute schedule)', () => {
    const [id, alarm] = Object.entries(s.template.findResources('AWS::CloudWatch::Alarm')).find(([k]) =>
      k.startsWith('SweeperLagging'),
    ) as [string, { Properties: AlarmProps }];
    expect(id).toBeDefined();
    const p = alarm.Properties;
    expect(p.MetricName).toBe('SweeperLag');
    const sweepSeconds = 15 * 60;
    const periodSeconds = p.Period ?? 0;
    // Simulate CloudWatch over two hours of a sweeper that lags on every run: one SweeperLag data
    // point (above the threshold) per run, none in between.
    const states: string[] = [];
    for (let t = 0; t < 2 * 3600; t += 60) {
      // The evaluation range: the last EvaluationPeriods periods ending at t.
      const windows = Array.from({ length: p.EvaluationPeriods }, (_, i) => {
        const end = Math.floor(t / periodSeconds) * periodSeconds - i * periodSeconds;
        const start = end - periodSeconds;
        let hasRun = false;
        for (let run = 0; run < 2 * 3600; run += sweepSeconds) if (run >= start && run < end) hasRun = true;
        return hasRun ? 'breaching' : 'missing';
      });
      const missingAs =
        p.TreatMissingData === 'breaching'
          ? 'breaching'
          : p.TreatMissingData === 'notBreaching'
            ? 'ok'
            : 'keep';
      const breaching = windows.filter((w) => w === 'breaching').length;
      const allMissing = windows.every((w) => w === 'missing');
      let state = states.at(-1) ?? 'INSUFFICIENT';
      if (allMissing && missingAs === 'keep') {
        // ignore/missing: the state is kept.
      } else if (
        breaching + (missingAs === 'breaching' ? windows.length - breaching : 0) >=
        (p.DatapointsToAlarm ?? p.EvaluationPeriods)
      ) {
        state = 'ALARM';
      } else if (missingAs === 'ok' || breaching === 0) {
        state = 'OK';
      }
      states.push(state);
    }
    const afterFirstAlarm = states.slice(states.indexOf('ALARM'));
    expect(states).toContain('ALARM');
    // Once in ALARM, a sweeper that never catches up must not be reported OK (OK actions page the topic).
    expect(
      afterFirstAlarm.filter((x) => x === 'OK').length,
      `period ${periodSeconds}s, missing data ${p.TreatMissingData}`,
    ).toBe(0);
  });
});
