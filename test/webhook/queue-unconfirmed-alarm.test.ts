/**
 * An actions queue that hangs (SQS stalling, a network path that swallows requests): the
 * deployed webhook's SQS client gives up after two attempts of 1 s each, about 2.1 s after the
 * send began. A send that begins early is answered "not queued" (`queue_unreachable`, counted by
 * the ActionsQueueUnreachable alarm); one that begins later than ~0.4 s after the request reached
 * API Gateway (a cold start, a first read of the requester key) is still running at the 2.5 s
 * deadline, and the person is answered "the actions queue did not confirm it in time"
 * (`queue_unconfirmed`). That outcome was not counted at all, so a hanging queue failed such
 * changes without a page.
 *
 * The webhook wired the deployed way (webhookDepsFromEnv), its state on the emulators, SQS at a
 * server that accepts connections and never answers; a real signed Slack request that reached
 * API Gateway 0.7 s before the webhook runs it (as after a cold start); the alarm from the
 * synthesized stack.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { alarmReading, emittedMetrics, expectReadsEmitted } from '../infra/alarm-reading.js';
import { synthesize } from '../infra/synth.js';
import { deployedWebhookOn } from './deployed-webhook.js';

const { emu: emulators } = emulatorsForFile();
const synth = synthesize({}, { bundle: false });
let hung: Server;
let hungUrl: string;
const sockets: Socket[] = [];
beforeAll(async () => {
  hung = createServer((socket) => {
    sockets.push(socket); // accepts the connection, never answers
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  hungUrl = `http://127.0.0.1:${(hung.address() as { port: number }).port}`;
});
afterAll(async () => {
  synth.cleanup();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => hung?.close(resolve));
});

const deployedWebhook = () => deployedWebhookOn(emulators, { env: { AWS_ENDPOINT_URL_SQS: hungUrl } });

describe('a webhook whose actions queue never answers', () => {
  it('counts each change it could not confirm under the metric the ActionsQueueUnreachable alarm reads', async () => {
    const { app, lines } = deployedWebhook();
    // Bound the way hono/aws-lambda binds an HTTP API event: when the request reached API Gateway.
    const arrived = { requestContext: { timeEpoch: Date.now() - 700 } };
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'approve trg_1 ph_1 smoke tests green' })),
      undefined,
      arrived,
    );
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('did not confirm');

    const alarm = alarmReading(synth, 'ActionsQueueUnreachable');
    const counted = emittedMetrics(lines).filter((m) => m.name === 'ActionsQueueUnreachable');
    expect(counted, lines.join('\n')).toHaveLength(1);
    expectReadsEmitted(alarm, counted[0]!);
    // The runbook sends on-call to both outcomes' request lines.
    expect(alarm.props.AlarmDescription).toContain('queue_unreachable');
    expect(alarm.props.AlarmDescription).toContain('queue_unconfirmed');
  }, 20_000);
});
