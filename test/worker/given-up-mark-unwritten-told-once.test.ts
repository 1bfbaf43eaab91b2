/**
 * A copy that gives up on its last receive tells it then, and writes the `dead-lettered` record and
 * the item saying when it was given up (src/state/given-up-end.ts). That item's put may fail (logged,
 * not thrown). Its last-receive mark must not then make the release tick take the copy for one that
 * died and tell a second give-up: the requester, the channel and the audit trail hear it once.
 * Real worker on fauxqs and dynalite, the Console API sandbox, the Slack stand-in, the deployed tick.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { copiesBench } from './copies.js';
import { copyTrigger, onReceive, requesterPostsAbout, sendAndReceive } from './fixture.js';
import { deployedTickAt } from './stuck.js';

const bench = copiesBench();

const tickAt = (iso: string) => deployedTickAt(bench, iso);

const requesterPosts = (id: string) => requesterPostsAbout(bench, id);

/** The bench's table, but every put of a give-up's `given-up` item fails. */
function givenUpPutFails(): StateTable {
  const real = bench.table.client;
  const client = {
    send: async (command: unknown) => {
      if (command instanceof PutItemCommand && command.input.Item?.sk?.S === 'given-up')
        throw new Error('ProvisionedThroughputExceededException');
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

async function oneRequest(id: string): Promise<SQSEvent> {
  copyTrigger(bench, `trg_${id}`);
  return sendAndReceive(bench, id);
}

describe('a give-up told on the last receive whose given-up item was not written', () => {
  it('is told once: the release tick does not tell it again', async () => {
    const id = 'ci-gave-up-mark-unwritten';
    const event = await oneRequest(id);
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
    const worker = bench.worker({ table: givenUpPutFails() });
    expect((await bench.run(worker, onReceive(event, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
    expect(requesterPosts(id)).toHaveLength(1);

    expect((await tickAt('2026-11-23T10:02:00Z')).givenUp).toEqual([]);
    expect(requesterPosts(id)).toHaveLength(1);
    expect((await readAudit(bench.table, id)).map((r) => r.result)).toEqual(['dead-lettered']);
  });
});
