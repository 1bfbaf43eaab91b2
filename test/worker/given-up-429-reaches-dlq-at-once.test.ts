/**
 * A request refused 429 on its last receive is told "it waits in the dead-letter queue for an
 * operator". The worker still set the 429's back-off on the message first (up to 15 minutes
 * deployed), so it stayed invisible in the actions queue: `autopilot dlq list` did not show it and
 * the DLQ alarm did not fire for that long. On the last receive the message is now made visible at
 * once, and the event source's next receive hands it to the DLQ. Real worker on fauxqs (its redrive
 * policy, real receive counts) and dynalite, the Console API sandbox, the Slack stand-in.
 */
import { GetQueueAttributesCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { beforeEach, expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { receiveEvent } from '../helpers/lambda.js';
import { benchForFile } from './fixture.js';

// One attempt per receive: each receive is one refused call.
const bench = benchForFile({ client: { maxRetries: 0 } });

beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  await bench.emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: bench.emulators.dlqUrl }));
});

async function dlqDepth(): Promise<number> {
  const out = await bench.emulators.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: bench.emulators.dlqUrl,
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? '0');
}

it('is in the dead-letter queue as soon as its give-up is told, not after its back-off', async () => {
  const worker = bench.worker();
  const phaseId = bench.api.sandbox.state.triggers.get('trg_7')?.currentPhaseID;
  await bench.send({
    triggerId: 'trg_7',
    phaseId,
    requestId: 'ci-429-last',
    reply: { slackResponseUrl: bench.slack.url('/actions/429-last') },
  });
  // The receives before the last fail with 503s (no back-off of their own: visible again at once).
  bench.api.sandbox.setFaults({ errorRate: 1, rateLimitRate: 0, only: 'mutations' });
  for (let receive = 1; receive < MAX_RECEIVE_COUNT; receive++) {
    const event = await receiveEvent(bench.queue, { max: 1, visibilityTimeout: 0 });
    expect(event.Records[0]?.attributes.ApproximateReceiveCount).toBe(String(receive));
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
  }
  // The last receive (the queue's own visibility) is refused 429 with a Retry-After.
  bench.api.sandbox.setFaults({ errorRate: 0, rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  const last = await receiveEvent(bench.queue, { max: 1 });
  expect(last.Records[0]?.attributes.ApproximateReceiveCount).toBe(String(MAX_RECEIVE_COUNT));
  expect((await bench.run(worker, last)).batchItemFailures).toHaveLength(1);
  const told = bench.slack.posts.filter((p) => p.path === '/actions/429-last');
  expect(told.map((p) => p.body.text)).toEqual([
    expect.stringContaining('it waits in the dead-letter queue'),
  ]);
  expect((await readAudit(bench.table, 'ci-429-last')).map((r) => r.result)).toEqual(['dead-lettered']);

  // The event source's next receive, right away: SQS moves the message to the DLQ.
  expect((await receiveEvent(bench.queue, { max: 1 })).Records).toHaveLength(0);
  expect(await dlqDepth()).toBe(1);
});
