/**
 * A mutation made, then the write of its audit record fails (DynamoDB throttled past the SDK's own
 * retries, or the invocation ends between the final and the audit record): the record is retried,
 * and the retry finds the request's final and *replays* it, which is told to the requester only and
 * audited as `replayed`. So the notifications channel never hears that the phase was approved, and
 * the trail has no `approved` record at all (only a replay of it), for a production change that
 * was made. The real worker on the emulators; one audit put fails.
 */
import { PutItemCommand, type PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { type Bench, startBench } from './fixture.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});

const onReceive = (event: SQSEvent, count: number): SQSEvent => ({
  Records: event.Records.map((r) => ({
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(count) },
  })),
});

it('an approval whose audit write failed once is still announced in the channel and recorded as approved', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'la-1';
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set('trg_la', {
    ...structuredClone(template!),
    id: 'trg_la',
    actions: [],
  });

  let failAudit = true;
  const real = bench.table.client;
  const flaky = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return (command: unknown, ...rest: unknown[]) => {
        if (command instanceof PutItemCommand) {
          const input = command.input as PutItemCommandInput;
          if (failAudit && input.Item?.requestId?.S === id && input.Item?.result?.S === 'approved') {
            failAudit = false;
            return Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
          }
        }
        return (target.send as (...a: unknown[]) => unknown).call(target, command, ...rest);
      };
    },
  });
  const worker = bench.worker({ table: { client: flaky, tableName: bench.table.tableName } });

  const before = bench.slack.posts.length;
  await bench.send({ triggerId: 'trg_la', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  expect((await bench.run(worker, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  expect(bench.approvals('trg_la')).toBe(1); // the phase was approved
  // SQS delivers the record again.
  expect((await bench.run(worker, onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_la')).toBe(1);

  const told = bench.slack.posts
    .slice(before)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body))
    .filter((body) => body.includes(id));
  expect(told.some((body) => body.includes('Done'))).toBe(true);
  expect((await readAudit(bench.table, id)).map((r) => r.result)).toContain('approved');
});
