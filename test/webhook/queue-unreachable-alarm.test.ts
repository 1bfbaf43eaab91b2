/**
 * When the webhook's send to the actions queue fails (the queue's policy or KMS key changed, the
 * queue deleted, SQS throttling), the person is answered 200 "not queued, try again" and the
 * webhook logged the request at warn: no metric, no alarm. If it lasts, every chat-ops change
 * fails while the dashboards look calm. The webhook now counts each such request
 * (ActionsQueueUnreachable) and an alarm reads it: not on one failure, but when a few come
 * within minutes (people trying again, or several people).
 * The deployed entry point, wired by the environment, on an API Gateway HTTP API event.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { httpApiV2Event, lambdaContext } from '../helpers/http-events.js';
import { commandBody, SIGNING_SECRET, slackHeaders } from '../helpers/slack-requests.js';
import { alarmReading, emittedMetrics, expectReadsEmitted, simulate } from '../infra/alarm-reading.js';
import { type Synthesized, synthesize } from '../infra/synth.js';

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResultV2>;

let s: Synthesized;
let emu: Emulators;
let handler: Handler;
const dir = mkdtempSync(join(tmpdir(), 'queue-unreachable-'));
const metricsFile = join(dir, 'metrics.jsonl');

beforeAll(async () => {
  s = synthesize({}, { bundle: false });
  emu = await startEmulators();
  const env: Record<string, string> = {
    AUTOPILOT_POLICY: 'policy.json',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
    CONSOLE_API_KEY: 'unused-key',
    CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
    // A queue that is gone: SQS refuses every send (as it does a send the queue policy denies).
    ACTIONS_QUEUE_URL: `${emu.queueUrl}-deleted`,
    STATE_TABLE_NAME: emu.tableName,
    AWS_ENDPOINT_URL_SQS: emu.sqsEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: emu.dynamodbEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOG_LEVEL: 'error',
    // Where the deployed wiring also copies its metric lines (the local stack's file).
    AUTOPILOT_METRICS_FILE: metricsFile,
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.stubEnv('AUTOPILOT_SECRET_ID', '');
  handler = (await import('../../functions/webhook.js')).handler as unknown as Handler;
}, 120_000);
afterAll(async () => {
  vi.unstubAllEnvs();
  s?.cleanup();
  await emu?.stop();
  rmSync(dir, { recursive: true, force: true });
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

    const lines = readFileSync(metricsFile, 'utf8').split('\n').filter(Boolean);
    const alarm = alarmReading(s, 'ActionsQueueUnreachable');
    const counted = emittedMetrics(lines).filter((m) => m.name === 'ActionsQueueUnreachable');
    expect(counted).toHaveLength(1);
    expect(counted[0]?.value).toBe(1);
    expectReadsEmitted(alarm, counted[0]!);
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.OKActions).toEqual(alarm.props.AlarmActions);
    expect(alarm.props.AlarmDescription).toContain('not queued');
  });

  it('does not page on a failure or two, and pages within 15 minutes when failures go on', () => {
    const alarm = alarmReading(s, 'ActionsQueueUnreachable');
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
