/**
 * docs/action-request.md, "Not a valid request": a field the worker does not know is never
 * ignored. A CI job that meant a dry run and wrote `dryrun` (or `dry_run`) had the key dropped
 * by the schema and its request decided and executed for real: a production change nobody asked
 * for. The message now goes to the DLQ at once, the error naming the key and the field it is a
 * near miss of, and the platform sees nothing.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest();

/** A CI request as a producer writes it by hand, `extra` merged in at the top level. */
function ciBody(requestId: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
    requestedAt: bench.clock.now.toISOString(),
    requestId,
    ...extra,
  });
}

/** The DLQ's `error` attribute of the message whose body carries `requestId`. */
async function dlqError(requestId: string): Promise<string | undefined> {
  const out = await bench.queue.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: bench.emulators.dlqUrl,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      VisibilityTimeout: 60,
    }),
  );
  const letter = out.Messages?.find((m) => m.Body?.includes(`"requestId":"${requestId}"`));
  return letter?.MessageAttributes?.error?.StringValue;
}

describe('a CI request with a field the worker does not know', () => {
  it('goes to the DLQ naming `dryrun` and suggesting `dryRun`, and nothing is approved', async () => {
    const body = ciBody('deploy-77-dryrun', { dryrun: true });
    await bench.queue.sqs.send(new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: body }));

    expect(await bench.run(bench.worker(), await bench.receive())).toEqual({ batchItemFailures: [] });

    const error = await dlqError('deploy-77-dryrun');
    expect(error).toContain('`dryrun`');
    expect(error).toContain('did you mean `dryRun`?');
    expect(bench.approvals('trg_1')).toBe(0);
    expect(bench.logs.filter((l) => l.result === 'approved')).toEqual([]);
  });

  it('names an unknown key inside requestedBy or reply with its path', async () => {
    const body = ciBody('deploy-78-nested', {
      requestedBy: { source: 'ci', id: 'deploy.yml', Source: 'slack' },
      reply: { slack_response_url: 'https://hooks.slack.com/x' },
    });
    await bench.queue.sqs.send(new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: body }));

    expect(await bench.run(bench.worker(), await bench.receive())).toEqual({ batchItemFailures: [] });

    const error = await dlqError('deploy-78-nested');
    expect(error).toContain('requestedBy: unknown field `Source` (did you mean `source`?)');
    expect(error).toContain('reply: unknown field `slack_response_url` (did you mean `slackResponseUrl`?)');
    expect(bench.approvals('trg_1')).toBe(0);
  });
});
