/**
 * An executed request whose final could not be written (a failed put, a crash between the effect
 * and the final) gets it when a copy replays its own effect: otherwise a message failing its proof
 * and claiming the id could still rewrite its end as dead-lettered.
 */
import { PutItemCommand, type PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { readFinal } from '../../src/state/audit.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

it('an approved request whose first final write failed still ends approved after a forged message claims its id', async () => {
  const id = 'review3-final-lost';
  let failFinal = true;
  const real = bench.table.client;
  const flaky = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return (command: unknown, ...rest: unknown[]) => {
        if (command instanceof PutItemCommand) {
          const input = command.input as PutItemCommandInput;
          if (failFinal && input.Item?.sk?.S === 'final' && input.Item?.pk?.S?.includes(id)) {
            failFinal = false;
            return Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
          }
        }
        return (target.send as (...a: unknown[]) => unknown).call(target, command, ...rest);
      };
    },
  });
  const worker = bench.worker({ table: { client: flaky, tableName: bench.table.tableName } });
  const request = { triggerId: 'trg_1', phaseId: 'ph_1', requestId: id };
  await bench.send(request);
  const first = await bench.run(worker, await bench.receive());
  expect(first.batchItemFailures).toHaveLength(1); // the final's put failed: retried
  expect(bench.approvals('trg_1')).toBe(1); // but the phase was approved
  // The retry (a producer retry here; a redelivery reads the same state) replays the effect.
  await bench.send(request);
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  expect(bench.approvals('trg_1')).toBe(1);

  bench.clock.now = new Date(bench.clock.now.getTime() + 60_000);
  const forged = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: bench.clock.now.toISOString(),
    requestId: id,
  };
  await bench.queue.sqs.send(
    new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: JSON.stringify(forged) }),
  );
  await bench.run(worker, await bench.receive());
  const final = await readFinal(bench.table, id);
  expect(await outcomeNow(bench.table, id), JSON.stringify(final)).toMatchObject({ exitCode: 0 });
});
