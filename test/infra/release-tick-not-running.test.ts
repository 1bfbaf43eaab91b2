/**
 * The release tick (the worker invoked by an EventBridge rule every minute) is what sends held
 * requests back: a cancel, a resume, an answered question, a wait that is over. People are told
 * "within a minute". If the rule was disabled, or Lambda dropped its invocations (async events
 * older than 60 s are discarded, never retried), nothing failed, so nothing counted: WorkerErrors
 * stayed quiet and every held request stayed held with no alarm. The tick now writes a heartbeat
 * (one EMF line per tick) and an alarm fires when none came for a while: never on a normal
 * schedule (a late metric line or a dropped tick), and within about 15 minutes of a stop.
 */
import { describe, expect, it } from 'vitest';
import { scheduledEvent } from '../../src/local/events.js';
import { lambdaContext } from '../helpers/lambda.js';
import { alarmReading, emittedMetrics, expectReadsEmitted, simulate } from './alarm-reading.js';
import { deployedWithMetrics } from './deployed-metrics.js';

const deployed = deployedWithMetrics('release-tick-heartbeat', (emulators) => ({
  AUTOPILOT_POLICY: 'policy.json',
  CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
  CONSOLE_API_KEY: 'unused-key',
  WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
  SWEEPER_REQUESTER_KEY: 'test-sweeper-key',
  ACTIONS_QUEUE_URL: emulators.queueUrl,
  DLQ_URL: emulators.dlqUrl,
}));

/** Minutes between ticks, from the rule that invokes the worker. */
function tickMinutes(): number {
  const workerId = deployed.synth.logicalId('Worker/Function');
  const rules = Object.values(deployed.synth.json.Resources).filter(
    (r) =>
      r.Type === 'AWS::Events::Rule' &&
      JSON.stringify(r.Properties?.Targets).includes(JSON.stringify({ 'Fn::GetAtt': [workerId, 'Arn'] })),
  );
  expect(rules).toHaveLength(1);
  const rate = /^rate\((\d+) minutes?\)$/.exec(String(rules[0]?.Properties?.ScheduleExpression));
  expect(rate, 'the release tick runs on a rate schedule').not.toBeNull();
  return Number(rate![1]);
}

describe('a release tick that stops', () => {
  it('writes a heartbeat on every tick, which exactly one alarm reads as emitted, paging the topic', async () => {
    // The deployed entry point, wired by the environment alone, invoked as EventBridge invokes it.
    const { handler } = await import('../../functions/worker.js');
    const tick = scheduledEvent(new Date(), 'ConsoleAutopilot-ReleaseTick');
    await handler(tick as never, lambdaContext({ timeoutMs: 60_000 }));
    await handler(tick as never, lambdaContext({ timeoutMs: 60_000 }));

    const lines = deployed.metricLines();
    const alarm = alarmReading(deployed.synth, 'ReleaseTicks');
    const beats = emittedMetrics(lines).filter((m) => m.name === 'ReleaseTicks');
    expect(beats).toHaveLength(2);
    for (const beat of beats) expectReadsEmitted(alarm, beat);
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.OKActions).toEqual(alarm.props.AlarmActions);
    expect(alarm.props.AlarmDescription).toMatch(/release tick/i);
  });

  it('stays OK on a normal schedule (late metric lines, a dropped tick) and fires within 15 minutes of a stop', () => {
    const alarm = alarmReading(deployed.synth, 'ReleaseTicks');
    const every = tickMinutes() * 60;
    const day = 24 * 3600;
    for (const aligned of [true, false])
      for (const delay of [0, 60, 150]) {
        // A day of ticks, one EMF line each, read from the log `delay` seconds later; every 7th
        // tick dropped (Lambda discarded it), and two in a row dropped once.
        const normal = Array.from({ length: day / every }, (_, i) => i * every)
          .filter((at, i) => i % 7 !== 3 && at !== 6 * 3600 && at !== 6 * 3600 + every)
          .map((at) => ({ at, arrives: at + delay }));
        const quiet = simulate(alarm, normal, { from: 3600, to: day, aligned });
        expect(
          quiet.filter((x) => x.state !== 'OK'),
          `aligned ${aligned}, delay ${delay}s`,
        ).toEqual([]);

        // The rule disabled at each minute of a period: no tick from `stop` on.
        for (let stop = 10 * 3600; stop < 10 * 3600 + alarm.period; stop += every) {
          const points = normal.filter((x) => x.at < stop);
          const states = simulate(alarm, points, { from: stop - 3600, to: stop + 3600, aligned });
          expect(states.filter((x) => x.t < stop && x.state !== 'OK')).toEqual([]);
          const fired = states.find((x) => x.t >= stop && x.state === 'ALARM');
          expect(fired, `aligned ${aligned}, delay ${delay}s, stop at ${stop}`).toBeDefined();
          expect(fired!.t - stop, `aligned ${aligned}, stop at ${stop}`).toBeLessThanOrEqual(15 * 60);
        }
      }
  });
});
