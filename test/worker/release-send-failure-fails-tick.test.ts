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
import { expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { listHeld } from '../../src/state/held.js';
import { createWorkerEntry } from '../../src/worker/worker.js';
import { basePolicy, benchResetEachTest } from './fixture.js';
import { holdForWindow, tickDeps } from './stuck.js';

const bench = benchResetEachTest();

it('fails the tick invocation (WorkerErrors) when a due held request could not be sent back, after sending the others', async () => {
  await holdForWindow(bench, 'rs-broken');
  await holdForWindow(bench, 'rs-fine');

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
    ...tickDeps(bench, parsePolicy(basePolicy(bench.slack.origin))),
    sqs: sqs as never,
    logger,
  });

  await expect(entry({ time: '2026-11-23T10:01:00Z' })).rejects.toThrow(/rs-broken/);

  // The other due request was sent back all the same, and the broken one is still held.
  const received = await bench.receive();
  expect(received.Records.map((r) => JSON.parse(r.body).requestId)).toEqual(['rs-fine']);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).toContain('rs-broken');
  const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'error');
  expect(errors.some((l) => l.requestId === 'rs-broken')).toBe(true);
});
