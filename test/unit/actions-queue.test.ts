import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { ActionRequestError, sendActionRequest, sqsSafeJson } from '../../src/queue/actions-queue.js';

let emulators: Emulators;
beforeAll(async () => {
  emulators = await startEmulators();
});
afterAll(async () => {
  await emulators.stop();
});

const request = {
  version: 1 as const,
  action: 'archive_config' as const,
  configId: 'new_checkout_copy',
  reason: 'unused 🚀 for months \uFFFF ünïcode',
  requestedBy: { source: 'slack' as const, id: 'U0ADMIN' },
  requestedAt: '2026-11-22T10:00:00Z',
};

describe('sendActionRequest', () => {
  it('writes bodies in printable ASCII that parse back to the same request', () => {
    const body = sqsSafeJson(request);
    expect(body).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(body)).toEqual(request);
  });

  it('sends a request with emoji and non-characters that comes back intact', async () => {
    await sendActionRequest(emulators.sqs, emulators.queueUrl, request);
    const out = await emulators.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: emulators.queueUrl,
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    const message = out.Messages?.[0];
    expect(message?.MessageAttributes?.action?.StringValue).toBe('archive_config');
    const parsed = parseActionRequest(message?.Body ?? '');
    expect(parsed).toEqual({ ok: true, request });
  });

  it('refuses an invalid request before anything is sent', async () => {
    await expect(
      sendActionRequest(emulators.sqs, emulators.queueUrl, { ...request, configId: '' }),
    ).rejects.toThrow(ActionRequestError);
  });
});
