/**
 * Slack retries never lose a mutation. A retried slash command (`X-Slack-Retry-Num`, same body,
 * so the same request id) is queued when its first delivery never reached the queue, and only
 * answered when it did; the answer says which. Against fauxqs and dynalite.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';
import { drainQueue } from '../webhook/queue-helpers.js';

const { emu, table } = emulatorsForFile();
beforeEach(async () => {
  await drainQueue(emu.sqs, emu.queueUrl);
});

const RETRY = { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' };

async function post(app: ReturnType<typeof buildApp>['app'], body: string, retry: boolean) {
  const res = await app.request(signedRequest('/slack/commands', body, retry ? { extraHeaders: RETRY } : {}));
  expect(res.status).toBe(200);
  return ((await res.json()) as { text: string }).text;
}

describe('Slack retries of a mutation', () => {
  it('queue a command whose first delivery never reached the queue, with the same request id', async () => {
    const body = commandBody({ text: 'approve trg_4 ph_1', triggerId: 'lost.1' });
    const unreachable = {
      send: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'NetworkingError' });
      },
    };
    const down = buildApp({ sqs: unreachable as never, queueUrl: emu.queueUrl, table });
    const first = await post(down.app, body, false);
    expect(first).toContain('*not* queued');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);

    const up = buildApp({ sqs: emu.sqs, queueUrl: emu.queueUrl, table });
    const retry = await post(up.app, body, true);
    const requestId = /slack-[0-9a-f]{32}/.exec(retry)?.[0];
    expect(retry).toContain('its first delivery never reached the queue, so it is queued now');
    const messages = await drainQueue(emu.sqs, emu.queueUrl, 1);
    expect(messages.map((m) => m.body.requestId)).toEqual([requestId]);
    expect(up.requestLines().at(-1)).toMatchObject({ outcome: 'retry_queued', requestId });
  });

  it('answer a retry of a command that was queued, and queue nothing more', async () => {
    const { app, requestLines } = buildApp({ sqs: emu.sqs, queueUrl: emu.queueUrl, table });
    const body = commandBody({ text: 'approve trg_4 ph_1', triggerId: 'queued.1' });
    const first = await post(app, body, false);
    const requestId = /slack-[0-9a-f]{32}/.exec(first)?.[0];
    const retry = await post(app, body, true);
    expect(retry).toContain(
      `(request id ${requestId}); it was already queued, so it was not queued a second time`,
    );
    expect(await drainQueue(emu.sqs, emu.queueUrl, 1)).toHaveLength(1);
    expect(requestLines().at(-1)).toMatchObject({ outcome: 'retry_ignored', requestId });
  });
});
