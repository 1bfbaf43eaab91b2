/**
 * The release tick sends each held request whose wait is over back to the queue. A send that
 * fails was logged and the tick carried on and returned normally: the worker's invocation
 * succeeded, so WorkerErrors (the only alarm that watches the tick) never fired, and no metric
 * counted it. A cause that lasts (the queue's key or policy changed, a requester key the worker
 * cannot read to re-sign a Slack request) left cancelled, resumed and answered requests held for
 * good, their people promised an ending "within a minute", while the operators saw nothing. The
 * tick still sends every other due request, then fails its invocation so WorkerErrors counts it.
 * The deployed tick (the worker function's entry) on the emulators.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { holdRequest, listHeld } from '../../src/state/held.js';
import { createWorkerEntry } from '../../src/worker/worker.js';
import { type Bench, basePolicy, startBench } from './fixture.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});

async function held(requestId: string): Promise<void> {
  const since = '2026-11-23T10:00:00.000Z';
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId: `trg_${requestId}`,
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy' },
    requestedAt: since,
    requestId,
  } as const;
  await holdRequest(
    bench.table,
    {
      requestId,
      action: 'approve_phase',
      target: `trigger trg_${requestId} phase ph_1`,
      requester: 'ci:deploy',
      why: 'window',
      rule: 'CI in office hours',
      reason: 'outside the window',
      since,
      nextLook: since,
      request,
    },
    bench.clock.now,
  );
}

it('fails the tick invocation (WorkerErrors) when a due held request could not be sent back, after sending the others', async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  await held('rs-broken');
  await held('rs-fine');

  const real = bench.queue.sqs;
  // The queue refuses this one request's copy (e.g. its re-signing fails); the others go through.
  const sqs: Pick<SQSClient, 'send'> = {
    send: (async (command: { input?: { MessageBody?: string } }) => {
      if (command.input?.MessageBody?.includes('rs-broken'))
        throw Object.assign(new Error('User is not authorized to perform kms:GenerateDataKey'), {
          name: 'KmsAccessDenied',
        });
      return real.send(command as never);
    }) as Pick<SQSClient, 'send'>['send'],
  };
  const lines: string[] = [];
  const logger = createLogger({ service: 'worker', sink: (l) => lines.push(l) });
  const entry = createWorkerEntry({
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    client: {} as never,
    sqs,
    table: bench.table,
    queueUrl: bench.queue.queueUrl,
    dlqUrl: bench.emulators.dlqUrl,
    logger,
    clock: () => bench.clock.now.getTime(),
    slack: { allowedOrigins: [bench.slack.origin] },
    signer: createRequesterSigner(async () => bench.requesterKeys),
  } as never);

  await expect(entry({ time: '2026-11-23T10:01:00Z' })).rejects.toThrow(/rs-broken/);

  // The other due request was sent back all the same, and the broken one is still held.
  const received = await bench.receive();
  expect(received.Records.map((r) => JSON.parse(r.body).requestId)).toEqual(['rs-fine']);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).toContain('rs-broken');
  const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'error');
  expect(errors.some((l) => l.requestId === 'rs-broken')).toBe(true);
});
