/**
 * Slack gets its answer within three seconds even when Secrets Manager does not answer: the
 * signing secret is read by the request's deadline or the request is answered 503, and the
 * webhook's AWS calls give up on their own (the SDK's requestTimeout only warns unless told to
 * throw). A server that accepts connections and never answers stands in for the outage.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import { webhookDepsFromEnv } from '../../src/wiring/from-env.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { TEST_POLICY } from './harness.js';

let server: Server;
const sockets: Socket[] = [];
let url: string;
beforeAll(async () => {
  server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_REGION', 'eu-central-1');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const NOW = Date.parse('2026-11-23T10:00:00Z');
const ENV = {
  AUTOPILOT_SECRET_ID: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:webhook-AbCdEf',
  WEBHOOK_REQUESTER_KEY_SECRET_ID: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:wkey-AbCdEf',
  CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
  STATE_TABLE_NAME: 'state',
};

/** Elapsed time only (a timer), never the date. */
const after = (ms: number, what: string) =>
  new Promise<string>((resolve) => setTimeout(() => resolve(what), ms));

it('answers 503 within Slack’s three seconds when Secrets Manager does not answer', async () => {
  vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', url);
  const deps = webhookDepsFromEnv(
    { ...ENV, ACTIONS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/actions' },
    { policy: parsePolicy(TEST_POLICY), clock: () => NOW },
  );
  const app = createWebhookApp({ ...deps, now: () => NOW });
  const request = signedRequest('/slack/commands', commandBody({ text: 'help' }), {
    timestamp: Math.floor(NOW / 1000),
  });
  const answered = Promise.resolve(app.request(request)).then((response) => `status ${response.status}`);
  expect(await Promise.race([answered, after(3_000, 'no answer within 3 s')])).toBe('status 503');
}, 10_000);

it("gives up on the webhook's own SQS calls rather than wait on them in the background", async () => {
  const deps = webhookDepsFromEnv(
    { ...ENV, ACTIONS_QUEUE_URL: `${url}/000000000000/actions`, AWS_ENDPOINT_URL_SQS: url },
    { policy: parsePolicy(TEST_POLICY) },
  );
  const depth = deps.queueDepth?.().then(
    () => 'answered',
    (error: Error) => `gave up: ${error.name}`,
  );
  // Two attempts of at most 1 s each, and a backoff between them.
  expect(await Promise.race([depth, after(4_000, 'still waiting after 4 s')])).toMatch(/^gave up/);
}, 10_000);
