/**
 * The webhook's AWS calls make two attempts at most (Slack's three seconds), and
 * `AWS_MAX_ATTEMPTS`, the SDK's own knob, may lower that but not raise it: the webhook sets its
 * attempts on its clients, which the SDK would otherwise let win over the variable silently. A
 * server that answers every request 500 (a failure the SDK retries) counts the attempts of the
 * webhook's SQS and Secrets Manager calls.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { webhookDepsFromEnv } from '../../src/wiring/from-env.js';
import { TEST_POLICY } from './harness.js';

let server: Server;
let url: string;
/** Requests received: SQS's, and Secrets Manager's by the secret asked for. */
let received: Record<string, number> = {};
beforeAll(async () => {
  server = createServer((req, res) => {
    const secretsManager = String(req.headers['x-amz-target'] ?? '').startsWith('secretsmanager.');
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const what = secretsManager ? (JSON.parse(body) as { SecretId: string }).SecretId : 'sqs';
      received[what] = (received[what] ?? 0) + 1;
      res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'InternalFailure', message: 'down for the test' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received = {};
});

const SECRET_ID = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:webhook-AbCdEf';

const depsWith = (extra: Record<string, string>) =>
  webhookDepsFromEnv(
    {
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_SQS: url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
      AUTOPILOT_SECRET_ID: SECRET_ID,
      WEBHOOK_REQUESTER_KEY_SECRET_ID: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:wkey-AbCdEf',
      CONSOLE_API_BASE_URL: 'http://127.0.0.1:1',
      ACTIONS_QUEUE_URL: `${url}/000000000000/actions`,
      STATE_TABLE_NAME: 'state',
      ...extra,
    },
    { policy: parsePolicy(TEST_POLICY) },
  );

/**
 * One queue-depth read and one secret read, each to its failure; the attempts the server saw of
 * each. (The secret read may also start reading the requester key, whose attempts can still be on
 * their way when it fails: not counted.)
 */
async function attempts(extra: Record<string, string>) {
  const deps = depsWith(extra);
  await expect(deps.queueDepth?.()).rejects.toThrow();
  await expect(deps.secrets.get()).rejects.toThrow();
  return { sqs: received.sqs, secrets: received[SECRET_ID] };
}

describe("the webhook's attempts per AWS call", () => {
  it('are two by default', async () => {
    expect(await attempts({})).toEqual({ sqs: 2, secrets: 2 });
  });

  it('are one when AWS_MAX_ATTEMPTS says 1', async () => {
    expect(await attempts({ AWS_MAX_ATTEMPTS: '1' })).toEqual({ sqs: 1, secrets: 1 });
  });

  it('stay two when AWS_MAX_ATTEMPTS asks for more (Slack waits three seconds)', async () => {
    expect(await attempts({ AWS_MAX_ATTEMPTS: '5' })).toEqual({ sqs: 2, secrets: 2 });
  });

  it.each(['0', 'three', '1.5'])('refuse AWS_MAX_ATTEMPTS=%s at start, naming the variable', (value) => {
    expect(() => depsWith({ AWS_MAX_ATTEMPTS: value })).toThrow(ConfigError);
    expect(() => depsWith({ AWS_MAX_ATTEMPTS: value })).toThrow(/AWS_MAX_ATTEMPTS/);
  });
});
