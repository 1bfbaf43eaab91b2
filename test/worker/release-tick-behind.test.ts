/**
 * A release tick short of time leaves due requests, stuck endings and pause keep-alives for the
 * next tick (release-tick-out-of-time.test.ts), and only logged a warn line. A tick that runs out
 * of time every minute (a huge backlog, a slow Slack, a slow table) still writes its heartbeat, so
 * ReleaseTickNotRunning never paged while people told "within a minute" waited indefinitely. The
 * tick now counts what it left (ReleaseTickBehind, only when something was), and an alarm pages
 * when ticks are left behind in three 5-minute periods in a row: never for a one-off slow tick.
 *
 * The worker's deployed entry point, wired by the environment alone on the emulators, invoked as
 * EventBridge invokes it, with a Lambda context whose remaining time counts down; the alarm from
 * the synthesized stack.
 */
import { describe, expect, it } from 'vitest';
import { scheduledEvent } from '../../src/local/events.js';
import { listHeld } from '../../src/state/held.js';
import type { StateTable } from '../../src/state/table.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { lambdaContext } from '../helpers/lambda.js';
import { alarmReading, emittedMetrics, expectReadsEmitted, simulate } from '../infra/alarm-reading.js';
import { deployedWithMetrics } from '../infra/deployed-metrics.js';
import { holdWindowWaits } from './held-window-waits.js';

const deployed = deployedWithMetrics('release-tick-behind', (emulators) => ({
  AUTOPILOT_POLICY: 'policy.json',
  CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
  CONSOLE_API_KEY: 'unused-key',
  WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
  SWEEPER_REQUESTER_KEY: 'test-sweeper-key',
  ACTIONS_QUEUE_URL: emulators.queueUrl,
  DLQ_URL: emulators.dlqUrl,
}));

const NOW = new Date('2026-11-23T20:00:00.000Z');
const IDS = ['tb-a', 'tb-b', 'tb-c', 'tb-d', 'tb-e'];

/** Five waits, all over by NOW. */
function holdFive(table: StateTable): Promise<void> {
  return holdWindowWaits(table, IDS, (i) => `2026-11-23T19:5${i}:00.000Z`, NOW);
}

/** The metric lines so far: none before the first line creates the file. */
function linesSoFar(): string[] {
  try {
    return deployed.metricLines();
  } catch {
    return [];
  }
}

const behindIn = (lines: string[]) => emittedMetrics(lines).filter((m) => m.name === 'ReleaseTickBehind');

describe('a release tick that runs out of time', () => {
  it('counts the held requests it left for the next tick, as exactly one paging alarm reads them; a tick that finishes counts none', async () => {
    const table: StateTable = { client: deployed.emulators.dynamo, tableName: deployed.emulators.tableName };
    await holdFive(table);
    const { handler } = await import('../../functions/worker.js');

    // Under the tick's 10 s margin from the start: nothing is sent back, all five are left.
    const before = linesSoFar().length;
    const short = (await handler(
      scheduledEvent(NOW, 'ConsoleAutopilot-ReleaseTick') as never,
      lambdaContext({ timeoutMs: 4_000 }),
    )) as ReleaseSummary;
    expect(short.released).toEqual([]);
    expect(short.left).toBe(IDS.length);
    expect(short.behind).toBe(IDS.length);
    expect((await listHeld(table)).map((h) => h.requestId).sort()).toEqual(IDS);
    const shortLines = deployed.metricLines().slice(before);
    // The heartbeat still beats: only the new count shows the tick did not keep up.
    expect(emittedMetrics(shortLines).filter((m) => m.name === 'ReleaseTicks')).toHaveLength(1);
    const behind = behindIn(shortLines);
    expect(behind).toHaveLength(1);
    expect(behind[0]!.value).toBe(IDS.length);

    const alarm = alarmReading(deployed.synth, 'ReleaseTickBehind');
    expectReadsEmitted(alarm, behind[0]!);
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.OKActions).toEqual(alarm.props.AlarmActions);
    expect(alarm.props.AlarmDescription).toContain('release tick out of time');
    expect(alarm.props.AlarmDescription).toContain('SlackPostsFailing');

    // The next tick, with time: sends back all five, leaves nothing, counts nothing.
    const after = linesSoFar().length;
    const next = (await handler(
      scheduledEvent(new Date(NOW.getTime() + 60_000), 'ConsoleAutopilot-ReleaseTick') as never,
      lambdaContext({ timeoutMs: 60_000 }),
    )) as ReleaseSummary;
    expect(next.released.sort()).toEqual(IDS);
    expect(next.behind).toBe(0);
    const nextLines = deployed.metricLines().slice(after);
    expect(emittedMetrics(nextLines).filter((m) => m.name === 'ReleaseTicks')).toHaveLength(1);
    expect(behindIn(nextLines)).toEqual([]);
  });

  it('pages when ticks are left behind in 3 periods in a row, never for a one-off slow tick or a quiet deployment', () => {
    const alarm = alarmReading(deployed.synth, 'ReleaseTickBehind');
    expect(alarm.period).toBe(300);
    expect(alarm.props).toMatchObject({ EvaluationPeriods: 3, TreatMissingData: 'notBreaching' });
    const minute = 60;
    const start = 10 * 3600;
    const day = 24 * 3600;
    for (const aligned of [true, false])
      for (const delay of [0, 60, 150]) {
        const at = (t: number, value: number) => ({ at: t, arrives: t + delay, value });
        const label = `aligned ${aligned}, delay ${delay}s`;

        // Idle: no line at all.
        expect(simulate(alarm, [], { from: 0, to: day, aligned }).some((x) => x.state === 'ALARM')).toBe(
          false,
        );
        // A resume's backlog drained over 5 ticks in a row (at any minute), and a lone slow tick
        // every 10 minutes all day: neither pages.
        for (let s = start; s < start + 300; s += minute) {
          const burst = Array.from({ length: 5 }, (_, i) => at(s + i * minute, 500 - i * 100));
          const states = simulate(alarm, burst, { from: s - 3600, to: s + 3600, aligned });
          expect(
            states.filter((x) => x.state === 'ALARM'),
            `${label}, burst at ${s}`,
          ).toEqual([]);
        }
        const sporadic = Array.from({ length: day / 600 }, (_, i) => at(i * 600, 3));
        expect(
          simulate(alarm, sporadic, { from: 0, to: day, aligned }).filter((x) => x.state === 'ALARM'),
          label,
        ).toEqual([]);

        // Every tick out of time from `s` on (a backlog that never drains): pages within 20
        // minutes; once ticks keep up again (no line from `s` + 1 h), it clears.
        for (let s = start; s < start + 300; s += minute) {
          const stuck = Array.from({ length: 60 }, (_, i) => at(s + i * minute, 1000));
          const states = simulate(alarm, stuck, { from: s - 3600, to: s + 2 * 3600, aligned });
          expect(states.filter((x) => x.t < s && x.state === 'ALARM')).toEqual([]);
          const fired = states.find((x) => x.state === 'ALARM');
          expect(fired, `${label}, behind from ${s}`).toBeDefined();
          expect(fired!.t - s, `${label}, behind from ${s}`).toBeLessThanOrEqual(20 * minute);
          const caughtUp = s + 3600;
          const ok = states.find((x) => x.t >= caughtUp && x.state === 'OK');
          expect(ok, `${label}, caught up at ${caughtUp}`).toBeDefined();
          expect(ok!.t - caughtUp).toBeLessThanOrEqual(10 * minute);
        }
      }
  });
});
