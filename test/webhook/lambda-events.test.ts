import type { APIGatewayProxyResult, APIGatewayProxyResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { EVENT_SHAPES, lambdaContext } from '../helpers/http-events.js';
import { commandBody, SIGNING_SECRET, sign, slackHeaders } from '../helpers/slack-requests.js';
import { drainQueue } from './queue-helpers.js';

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResult | APIGatewayProxyResultV2>;

let emu: Emulators;
let sandbox: RunningSandbox;
let handler: Handler;

beforeAll(async () => {
  [emu, sandbox] = await Promise.all([startEmulators(), startSandbox({ seed: 3 })]);
  const env: Record<string, string> = {
    AUTOPILOT_POLICY: 'policy.json',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
    CONSOLE_API_KEY: 'sandbox-key',
    CONSOLE_API_BASE_URL: sandbox.url,
    ACTIONS_QUEUE_URL: emu.queueUrl,
    STATE_TABLE_NAME: emu.tableName,
    AWS_ENDPOINT_URL_SQS: emu.sqsEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: emu.dynamodbEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOG_LEVEL: 'error',
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.stubEnv('AUTOPILOT_SECRET_ID', '');
  // The handler module builds its dependencies from the environment at import, as on a cold start.
  handler = (await import('../../functions/webhook.js')).handler as unknown as Handler;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all([emu?.stop(), sandbox?.close()]);
});
beforeEach(async () => {
  await drainQueue(emu.sqs, emu.queueUrl);
});

const shapes = Object.entries(EVENT_SHAPES);

describe.each(shapes)('the Lambda handler with %s events', (_shape, makeEvent) => {
  it('answers GET /health without calling anything', async () => {
    const before = sandbox.sandbox.requests.length;
    const res = await handler(makeEvent({ method: 'GET', path: '/health' }), lambdaContext());
    expect(res).toMatchObject({ statusCode: 200 });
    expect(JSON.parse((res as { body: string }).body)).toEqual({
      ok: true,
      service: 'console-autopilot-webhook',
    });
    expect(sandbox.sandbox.requests.length).toBe(before);
  });

  it('answers an unknown route with a JSON 404', async () => {
    const res = (await handler(makeEvent({ method: 'GET', path: '/wp-admin' }), lambdaContext())) as {
      statusCode: number;
      body: string;
    };
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'not_found' });
  });

  it.each([false, true])('queues a signed approval (base64 body: %s)', async (base64) => {
    const body = commandBody({ text: 'approve trg_1 ph_1 Grüße aus Köln 日本語' });
    const res = (await handler(
      makeEvent({ method: 'POST', path: '/slack/commands', headers: slackHeaders(body), body, base64 }),
      lambdaContext(),
    )) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).text).toContain('Queued');
    const [message] = await drainQueue(emu.sqs, emu.queueUrl, 2);
    expect(message!.body).toMatchObject({
      action: 'approve_phase',
      triggerId: 'trg_1',
      reason: 'Grüße aus Köln 日本語',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
    });
    // Vouched for by the webhook's key, which only it and the worker hold.
    expect(message!.attributes.requesterProof).toMatch(/^v1\.webhook\.[0-9a-f]{64}$/);
  });

  it('answers a read from the sandbox', async () => {
    const body = commandBody({ text: 'role admin', userId: 'U0SOMEONE' });
    const res = (await handler(
      makeEvent({ method: 'POST', path: '/slack/commands', headers: slackHeaders(body), body, base64: true }),
      lambdaContext(),
    )) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).text).toMatch(/^Role Admin: (\d+) of \1 permissions$/);
  });

  it('refuses a forged request and a repeated signature header, and queues nothing', async () => {
    const body = commandBody({ text: 'approve trg_1 ph_1' });
    const forged = (await handler(
      makeEvent({
        method: 'POST',
        path: '/slack/commands',
        headers: slackHeaders(body, { secret: 'forged' }),
        body,
      }),
      lambdaContext(),
    )) as { statusCode: number; body: string };
    expect(forged.statusCode).toBe(401);
    const headers = slackHeaders(body);
    const ts = headers['x-slack-request-timestamp']!;
    const repeated = (await handler(
      makeEvent({
        method: 'POST',
        path: '/slack/commands',
        headers: {
          ...headers,
          'x-slack-signature': [sign('forged', ts, body), headers['x-slack-signature']!],
        },
        body,
      }),
      lambdaContext(),
    )) as { statusCode: number; body: string };
    expect(repeated.statusCode).toBe(401);
    expect(JSON.parse(repeated.body)).toMatchObject({ error: 'signature_repeated' });
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });
});
