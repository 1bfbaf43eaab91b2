/**
 * README "Operations": the saved query "one request by id" finds a request's story by the id its
 * producer gave it. A body that fails validation is dead-lettered under the id the worker gives
 * the message (`sqs:<message id>`): the id the body carried was nowhere on the line, so a CI
 * producer who sent a malformed request with `requestId: "deploy-1234"` and ran the query with it
 * found nothing. The body's id is logged beside it as `claimedRequestId` (unproven: it never
 * replaces the trusted id, and only an id of the request id's own syntax is written), and the
 * query matches either field.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SAVED_QUERIES } from '../../infra/operations.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { benchResetEachTest, type LogLine, onReceive } from './fixture.js';

const bench = benchResetEachTest();

/** The saved query's filter, run over parsed lines: its `field = "<id>"` clauses, joined by `or`. */
function oneRequestById(lines: LogLine[], id: string): LogLine[] {
  const query = SAVED_QUERIES['one request by id']!.toString();
  const filter = /\| filter (.*)/.exec(query)?.[1] as string;
  const clauses = filter.split(/\s+or\s+/).map((clause) => {
    const match = /^(\w+) = "REPLACE-WITH-REQUEST-ID"$/.exec(clause.trim());
    if (!match) throw new Error(`the test reads only "field = id" clauses joined by or: ${clause}`);
    return match[1] as string;
  });
  return lines.filter((line) => clauses.some((field) => line[field] === id));
}

/** A body that fails validation (no triggerId), carrying `requestId`. */
function invalidBody(requestId: unknown): string {
  return JSON.stringify({
    version: 1,
    action: 'approve_phase',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy.yml' },
    requestedAt: bench.clock.now.toISOString(),
    requestId,
  });
}

async function sendRaw(body: string): Promise<void> {
  await bench.queue.sqs.send(new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: body }));
}

describe('an invalid action request that carries a request id', () => {
  it('is found by the saved query under that id, while its line keeps the sqs: id', async () => {
    await sendRaw(invalidBody('deploy-1234'));
    const event = await bench.receive();
    const messageId = event.Records[0]?.messageId as string;
    const before = bench.logs.length;
    expect(await bench.run(bench.worker(), event)).toEqual({ batchItemFailures: [] });
    const lines = bench.logs.slice(before);

    const found = oneRequestById(lines, 'deploy-1234');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      message: 'invalid action request sent to the DLQ',
      requestId: `sqs:${messageId}`,
      claimedRequestId: 'deploy-1234',
      messageId,
    });
    // The trusted id still finds it too.
    expect(oneRequestById(lines, `sqs:${messageId}`)).toEqual(found);
  });

  it('writes no claimed id that is not of the request id syntax (control characters, over-long)', async () => {
    for (const claim of ['evil\u001b[2Jid\nforged line', 'x'.repeat(129), { nested: 'object' }]) {
      await sendRaw(invalidBody(claim));
    }
    const before = bench.logs.length;
    expect(await bench.run(bench.worker(), await bench.receive())).toEqual({ batchItemFailures: [] });
    const dead = bench.logs
      .slice(before)
      .filter((l) => l.message === 'invalid action request sent to the DLQ');
    expect(dead).toHaveLength(3);
    for (const line of dead) {
      expect(line.requestId).toMatch(/^sqs:/);
      expect(line).not.toHaveProperty('claimedRequestId');
    }
  });

  it('keeps the sqs: id on the line of a last receive whose DLQ send failed, with the claim beside it', async () => {
    await sendRaw(invalidBody('deploy-5678'));
    const event = onReceive(await bench.receive(), MAX_RECEIVE_COUNT);
    const messageId = event.Records[0]?.messageId as string;
    const real = bench.queue.sqs;
    const worker = bench.worker({
      sqs: {
        send: (async (command: SendMessageCommand) => {
          if (command.input.QueueUrl === bench.emulators.dlqUrl) throw new Error('DLQ unavailable');
          return real.send(command as never);
        }) as never,
      },
    });
    const before = bench.logs.length;
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [{ itemIdentifier: messageId }] });
    const found = oneRequestById(bench.logs.slice(before), 'deploy-5678');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      message: 'record failed on its last receive; SQS moves it to the DLQ',
      requestId: `sqs:${messageId}`,
      claimedRequestId: 'deploy-5678',
    });
  });
});
