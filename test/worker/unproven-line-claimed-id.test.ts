/**
 * README "Operations", saved query "one request by id": a line's `requestId` is the id the worker
 * trusts. A message with a valid body but no valid requester proof (a forged sender, or the first
 * receive after a key rotation) only claims the `requestId` in its body; its lines used to carry
 * that claim as their `requestId`, so they showed up as part of another request's story under
 * that request's id. They are named `sqs:<message id>`, the claim written beside it as
 * `claimedRequestId` (as for a body that is not a valid request), and the query still finds them
 * by the claimed id.
 */
import { type MessageAttributeValue, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { PROOF_ATTRIBUTE, requesterProof } from '../../src/actions/proof.js';
import { benchResetEachTest, type LogLine } from './fixture.js';

const bench = benchResetEachTest();

/** A person's chat request claiming `requestId`, signed with a key the worker does not hold. */
async function sendForged(requestId: string): Promise<void> {
  const body = JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: bench.clock.now.toISOString(),
    requestId,
  });
  const proof: MessageAttributeValue = {
    DataType: 'String',
    StringValue: requesterProof('webhook', 'not-the-webhook-key', body),
  };
  await bench.queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.queue.queueUrl,
      MessageBody: body,
      MessageAttributes: { [PROOF_ATTRIBUTE]: proof },
    }),
  );
}

/** The lines (log and metric) whose `requestId` is `id`. */
const namedBy = (lines: LogLine[], id: string) => lines.filter((line) => line.requestId === id);

describe('a valid body whose requester is not proven', () => {
  it('is dead-lettered on a line named by its message id, the claimed id beside it', async () => {
    await sendForged('deploy-4321');
    const event = await bench.receive();
    const messageId = event.Records[0]?.messageId as string;
    const before = bench.logs.length;
    expect(await bench.run(bench.worker(), event)).toEqual({ batchItemFailures: [] });
    const lines = bench.logs.slice(before);

    expect(namedBy(lines, 'deploy-4321')).toEqual([]);
    const refused = lines.find((line) => line.message === 'refused action request sent to the DLQ');
    expect(refused).toMatchObject({
      requestId: `sqs:${messageId}`,
      claimedRequestId: 'deploy-4321',
      rule: 'requester-not-proven',
    });
  });

  it('is retried after a key rotation on a line named by its message id, the claimed id beside it', async () => {
    await sendForged('deploy-8765');
    const event = await bench.receive();
    const messageId = event.Records[0]?.messageId as string;
    // Keys that rotate but were read a moment ago: on its first receive the message comes back later.
    const worker = bench.worker({
      requesterKeys: { get: async () => bench.requesterKeys, refresh: async () => false, rotates: true },
    });
    const before = bench.logs.length;
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [{ itemIdentifier: messageId }] });
    const lines = bench.logs.slice(before);

    expect(namedBy(lines, 'deploy-8765')).toEqual([]);
    expect(lines.find((line) => line.message === 'record will be retried')).toMatchObject({
      requestId: `sqs:${messageId}`,
      claimedRequestId: 'deploy-8765',
      messageId,
    });
  });
});
