/**
 * `/autopilot status` shows "Queued actions", and README's upgrade advice is to deploy when that is
 * 0. A request the worker is working on, one waiting out the visibility timeout after a retry, or
 * one backing off (up to 15 minutes) after a 429 is in flight: invisible, yet not done. The depth
 * the deployed webhook reads (src/wiring/aws-clients.ts) must count those, as the local stack's
 * own depth (src/local/event-source.ts) does.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import { webhookDepsFromEnv } from '../../src/wiring/from-env.js';
import { commandBody, SIGNING_SECRET, signedRequest } from '../helpers/slack-requests.js';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);

let emu: Emulators;
beforeAll(async () => {
  emu = await startEmulators({ visibilityTimeoutSeconds: 600 });
});
afterAll(async () => {
  await emu?.stop();
});

function webhook() {
  const env = {
    AUTOPILOT_POLICY: 'policy.json',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
    CONSOLE_API_KEY: 'unused-key',
    CONSOLE_API_BASE_URL: 'https://console.example.com',
    ACTIONS_QUEUE_URL: emu.queueUrl,
    STATE_TABLE_NAME: emu.tableName,
    AWS_ENDPOINT_URL_SQS: emu.sqsEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: emu.dynamodbEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOG_LEVEL: 'error',
  };
  return createWebhookApp(webhookDepsFromEnv(env, { clock: () => NOW }));
}

async function queuedActions(): Promise<string> {
  const res = await webhook().request(
    signedRequest('/slack/commands', commandBody({ text: 'status', userId: 'U0READER' }), {
      timestamp: NOW / 1000,
    }),
  );
  expect(res.status).toBe(200);
  const text = JSON.stringify(((await res.json()) as { blocks?: unknown[] }).blocks);
  const match = /\*Queued actions\*\\n([^"]+)"/.exec(text);
  return match?.[1] ?? `not shown in ${text}`;
}

describe('status: the queue depth', () => {
  it('counts a request the worker has received and not yet finished (in flight), not only visible ones', async () => {
    await emu.sqs.send(new SendMessageCommand({ QueueUrl: emu.queueUrl, MessageBody: '{"version":1}' }));
    expect(await queuedActions()).toBe('1');
    // The event source mapping receives it: it is invisible until the worker deletes it or it times out.
    const received = await emu.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: emu.queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 }),
    );
    expect(received.Messages).toHaveLength(1);
    expect(await queuedActions()).toBe('1');
  });
});
