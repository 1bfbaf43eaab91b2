/**
 * A delete from the DLQ that fails after the message was sent back: it used to leave the loop, put
 * every held letter back (the sent one too, so a retry sent it twice) and skip the rest.
 */
import { describe, expect, it, vi } from 'vitest';

const calls: Array<{ name: string; input: Record<string, unknown> }> = [];
let received = false;
const messages = ['m-1', 'm-2'].map((id) => ({
  MessageId: id,
  ReceiptHandle: `rh-${id}`,
  Body: JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy' },
    requestedAt: '2026-11-23T09:00:00Z',
    requestId: `req-${id}`,
  }),
  MessageAttributes: {},
  Attributes: { ApproximateReceiveCount: '5' },
}));

vi.mock('../../src/queue/actions-queue.js', async (original) => ({
  ...(await original<object>()),
  createSqsClient: () => ({
    destroy: () => undefined,
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const name = command.constructor.name;
      calls.push({ name, input: command.input });
      if (name === 'ReceiveMessageCommand') {
        if (received) return { Messages: [] };
        received = true;
        return { Messages: messages };
      }
      if (name === 'SendMessageCommand') return { MessageId: `new-${calls.length}` };
      if (name === 'DeleteMessageCommand') {
        if (command.input.ReceiptHandle === 'rh-m-1') throw new Error('ReceiptHandleIsInvalid');
        return {};
      }
      return {};
    },
  }),
}));

const { runCli } = await import('../../src/cli/run.js');
const { captureIo } = await import('../helpers/cli-io.js');

describe('dlq redrive when a delete fails after its send', () => {
  it('does not put the sent message back in the DLQ, and still redrives and reports the rest', async () => {
    const t = captureIo({
      env: { DLQ_URL: 'http://sqs.local/dlq', ACTIONS_QUEUE_URL: 'http://sqs.local/q' },
    });
    const code = await runCli(['dlq', 'redrive', '--all'], t.io);
    const sent = calls
      .filter((c) => c.name === 'SendMessageCommand')
      .map((c) => c.input.MessageBody as string);
    const madeVisible = calls
      .filter((c) => c.name === 'ChangeMessageVisibilityCommand' && c.input.VisibilityTimeout === 0)
      .map((c) => c.input.ReceiptHandle);
    // m-1 was sent to the actions queue: it must not be released back into the DLQ at once.
    expect(sent.some((b) => b.includes('req-m-1'))).toBe(true);
    expect(madeVisible).not.toContain('rh-m-1');
    // m-2 was asked for too: it is redriven, and the output says what happened to both.
    expect(sent.some((b) => b.includes('req-m-2'))).toBe(true);
    expect(code).toBe(1);
    expect(`${t.out()}\n${t.err()}`).toContain('m-1');
  });
});
