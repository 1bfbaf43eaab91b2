/**
 * An approved request keeps its ending when a message that fails its requester proof, claiming the
 * same request id, is dead-lettered afterwards: the executed request's end used to be read from
 * its latest audit record, so the forged message's "dead-lettered" record rewrote it.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

it('keeps an approved request approved when an unproven message claiming its id is dead-lettered', async () => {
  const worker = bench.worker();
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'review-trail-1' });
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  expect(bench.approvals('trg_1')).toBe(1);
  expect(await outcomeNow(bench.table, 'review-trail-1')).toMatchObject({ exitCode: 0, result: 'approved' });

  // Anyone the queue lets send (a CI principal) puts a forged slack request with that id: no proof.
  bench.clock.now = new Date(bench.clock.now.getTime() + 60_000);
  const forged = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: bench.clock.now.toISOString(),
    requestId: 'review-trail-1',
  };
  await bench.queue.sqs.send(
    new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: JSON.stringify(forged) }),
  );
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  const trail = await readAudit(bench.table, 'review-trail-1');
  expect(trail.map((r) => r.result)).toContain('approved');

  // The approved request's ending is still "approved" (the CI gate must exit 0).
  expect(await outcomeNow(bench.table, 'review-trail-1')).toMatchObject({ exitCode: 0, result: 'approved' });
});
