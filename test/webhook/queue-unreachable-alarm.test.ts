/**
 * When the webhook's send to the actions queue fails (the queue's policy or KMS key changed, the
 * queue deleted, SQS throttling), the person is answered 200 "not queued, try again" and the
 * webhook logged the request at warn: no metric, no alarm. If it lasts, every chat-ops change
 * fails while the dashboards look calm. The webhook now counts each such request
 * (ActionsQueueUnreachable) and an alarm reads it: not on one failure, but when a few come
 * within minutes (people trying again, or several people).
 * The deployed entry point, wired by the environment, on an API Gateway HTTP API event.
 */
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpApiV2Event, lambdaContext } from '../helpers/http-events.js';
import { commandBody, SIGNING_SECRET, slackHeaders } from '../helpers/slack-requests.js';
import { alarmReading, emittedMetrics, expectReadsEmitted, simulate } from '../infra/alarm-reading.js';
import { deployedWithMetrics } from '../infra/deployed-metrics.js';

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResultV2>;

const deployed = deployedWithMetrics('queue-unreachable', (emulators) => ({
  AUTOPILOT_POLICY: 'policy.json',
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
  CONSOLE_API_KEY: 'unused-key',
  CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
  // A queue that is gone: SQS refuses every send (as it does a send the queue policy denies).
  ACTIONS_QUEUE_URL: `${emulators.queueUrl}-deleted`,
}));
let handler: Handler;
beforeAll(async () => {
  handler = (await import('../../functions/webhook.js')).handler as unknown as Handler;
});

describe('a webhook that cannot queue', () => {
  it('counts each request it could not queue, under the metric exactly one paging alarm reads', async () => {
    const body = commandBody({ text: 'approve trg_1 ph_1 smoke tests green' });
    const res = (await handler(
      httpApiV2Event({ method: 'POST', path: '/slack/commands', headers: slackHeaders(body), body }),
      lambdaContext(),
    )) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).text).toContain('was *not* queued');

    const lines = deployed.metricLines();
    const alarm = alarmReading(deployed.synth, 'ActionsQueueUnreachable');
    const counted = emittedMetrics(lines).filter((m) => m.name === 'ActionsQueueUnreachable');
    expect(counted).toHaveLength(1);
    expect(counted[0]?.value).toBe(1);
    expectReadsEmitted(alarm, counted[0]!);
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.OKActions).toEqual(alarm.props.AlarmActions);
    expect(alarm.props.AlarmDescription).toContain('not queued');
  });

  it('does not page on a failure or two, and pages within 15 minutes when failures go on', () => {
    const alarm = alarmReading(deployed.synth, 'ActionsQueueUnreachable');
    const at = (minutes: number[]) =>
      minutes.map((m) => ({ at: 3600 + m * 60 + 20, arrives: 3600 + m * 60 + 80 }));
    const range = { from: 0, to: 6 * 3600 };
    for (const aligned of [true, false]) {
      // One failure and a person trying again at once; a blip that hit two people; one an hour.
      for (const transient of [[0], [0, 1], [0, 60, 120, 180]]) {
        const states = simulate(alarm, at(transient), { ...range, aligned });
        expect(
          states.filter((x) => x.state === 'ALARM'),
          `aligned ${aligned}: ${transient}`,
        ).toEqual([]);
      }
      // It lasts: a person tries three times in a row, and others after them.
      const lasting = [0, 1, 2, 6, 8, 12, 15, 20, 30];
      const fired = simulate(alarm, at(lasting), { ...range, aligned }).find((x) => x.state === 'ALARM');
      expect(fired, `aligned ${aligned}`).toBeDefined();
      expect(fired!.t - (3600 + 20), `aligned ${aligned}`).toBeLessThanOrEqual(15 * 60);
    }
  });
});
