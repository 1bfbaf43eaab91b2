/**
 * `dlq redrive` reports, for each message it sends back, the request id its outcome will be found
 * under (`autopilot audit --request <id>`, the saved query "one request by id"). A body without a
 * `requestId` is named by the worker after the SQS message it receives (`sqs:<message id>`), and a
 * redriven message is a new SQS message: the report named it after the old one, an id under which
 * nothing of the redriven request is ever recorded, so the operator looking for its outcome found
 * only the old dead-lettering.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readAudit } from '../../src/state/audit.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

// One receive allowed: the second moves the message to the DLQ, as the fifth does deployed.
const bench = benchForFile({ emulators: { maxReceiveCount: 1 } });

it('names a redriven message without a request id by the id the worker records its outcome under', async () => {
  const phase = bench.api.sandbox.state.triggers.get('trg_1')?.currentPhaseID as string;
  const sent = await bench.queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.queue.queueUrl,
      MessageBody: JSON.stringify({
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: phase,
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: bench.clock.now.toISOString(),
      }),
    }),
  );
  // Received and failed (visible again at once), then moved to the DLQ by the redrive policy.
  for (let i = 0; i < 2; i += 1)
    await bench.queue.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: bench.queue.queueUrl, VisibilityTimeout: 0 }),
    );

  const io = captureIo({
    env: {
      DLQ_URL: bench.emulators.dlqUrl,
      ACTIONS_QUEUE_URL: bench.queue.queueUrl,
      AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint,
    },
  });
  expect(await runCli(['dlq', 'redrive', '--id', `sqs:${sent.MessageId}`, '--json'], io.io)).toBe(0);
  const { moved } = JSON.parse(io.out()) as { moved: Array<{ newMessageId: string; requestId?: string }> };
  expect(moved).toHaveLength(1);

  // The worker takes the redriven message and approves the phase.
  await bench.run(bench.worker(), await bench.receive());
  expect(bench.approvals('trg_1')).toBe(1);

  // Its outcome is found under the id the redrive reported.
  const reported = moved[0]?.requestId as string;
  expect((await readAudit(bench.table, reported)).map((r) => r.result)).toContain('approved');
});
