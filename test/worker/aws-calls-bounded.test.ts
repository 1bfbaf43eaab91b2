/**
 * The worker's AWS calls give up on their own: a record whose call hangs fails (and is retried
 * through the queue) instead of holding the whole invocation until Lambda times it out with
 * every other record of the batch. A server that accepts connections and never answers stands
 * in for a hung endpoint.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { workerDepsFromEnv } from '../../src/wiring/from-env.js';
import { createWorker } from '../../src/worker/worker.js';
import { lambdaContext } from '../helpers/lambda.js';

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
  // One attempt per call, so the test waits for one request timeout, not three.
  vi.stubEnv('AWS_MAX_ATTEMPTS', '1');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** Elapsed time only (a timer), never the date. */
const after = (ms: number, what: string) =>
  new Promise<string>((resolve) => setTimeout(() => resolve(what), ms));

it('fails a record whose AWS call hangs, well before the invocation runs out', async () => {
  const deps = workerDepsFromEnv(
    {
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_SQS: url,
      AWS_ENDPOINT_URL_DYNAMODB: url,
      CONSOLE_API_KEY: 'sandbox-key',
      CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
      ACTIONS_QUEUE_URL: `${url}/000000000000/actions`,
      DLQ_URL: `${url}/000000000000/dlq`,
      STATE_TABLE_NAME: 'autopilot-state',
      WEBHOOK_REQUESTER_KEY: 'local-webhook-key',
      SWEEPER_REQUESTER_KEY: 'local-sweeper-key',
    },
    {
      policy: parsePolicy({ version: 1, timezone: 'UTC' }),
      logger: createLogger({ service: 'worker', sink: () => undefined }),
    },
  );
  const worker = createWorker(deps);
  // Not an action request: it goes to the DLQ at once, by a SendMessage that never answers.
  const record = {
    messageId: 'm-1',
    receiptHandle: 'rh-1',
    body: 'not json',
    attributes: { ApproximateReceiveCount: '1' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-central-1:000000000000:actions',
    awsRegion: 'eu-central-1',
  } as unknown as SQSRecord;
  const handled = Promise.resolve(worker({ Records: [record] }, lambdaContext({ timeoutMs: 60_000 }))).then(
    (response) => JSON.stringify(response),
  );
  expect(await Promise.race([handled, after(20_000, 'still waiting after 20 s')])).toBe(
    JSON.stringify({ batchItemFailures: [{ itemIdentifier: 'm-1' }] }),
  );
}, 30_000);
