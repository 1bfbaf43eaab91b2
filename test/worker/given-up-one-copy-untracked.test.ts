/**
 * A request sent with no producer id is named for its one SQS message (`sqs:<messageId>`): no other
 * message can be a copy of it, so its failed attempts register no live copy (one DynamoDB write
 * each, for nothing) and its give-up reads none; it is still told, once, as given up.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { receiveEvent } from '../helpers/lambda.js';
import { benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest();

async function copiesItems(): Promise<number> {
  const { Items = [] } = await bench.table.client.send(new ScanCommand({ TableName: bench.table.tableName }));
  return Items.filter((item) => item.pk?.S?.startsWith('copies#')).length;
}

it('tracks no live copies for a request named for its one message, and still tells its give-up', async () => {
  const worker = bench.worker();
  const phaseId = bench.api.sandbox.state.triggers.get('trg_7')?.currentPhaseID;
  await bench.send({
    triggerId: 'trg_7',
    phaseId,
    reply: { slackResponseUrl: bench.slack.url('/actions/one') },
  });
  bench.api.sandbox.setFaults({ errorRate: 1, rateLimitRate: 0, only: 'mutations' });
  for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++) {
    const event = await receiveEvent(bench.queue, { max: 1, visibilityTimeout: 0 });
    expect(event.Records[0]?.attributes.ApproximateReceiveCount).toBe(String(receive));
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
  }
  expect(await copiesItems()).toBe(0);
  const told = bench.slack.posts.filter((p) => p.path === '/actions/one').map((p) => p.body.text);
  expect(told).toEqual([expect.stringContaining('dead-letter queue')]);
});
