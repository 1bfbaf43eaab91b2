/**
 * Copies of one request on the queue (a producer retried SendMessage, a job retried under the same
 * id) and another request for the same change, for the tests of give-ups deferred to a live copy
 * and of waits on an effect claim: the same setup and steps, kept in one place so they stay alike.
 */
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { beforeEach, expect } from 'vitest';
import { type ConsoleClient, clockOf, createConsoleClient } from '../../src/console/index.js';
import { type Bench, benchForFile } from './fixture.js';

/**
 * The bench of a file of racing copies, one attempt per receive (each receive is one refused call),
 * reset before each test: 10:00 on the 23rd, no faults, no Slack posts, the queue and the DLQ empty.
 */
export function copiesBench(): Bench {
  const bench = benchForFile({ client: { maxRetries: 0 } });
  beforeEach(async () => {
    bench.clock.now = new Date('2026-11-23T10:00:00Z');
    bench.api.sandbox.setFaults({ errorRate: 0, rateLimitRate: 0 });
    bench.slack.posts.length = 0;
    await bench.purge();
    await bench.emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: bench.emulators.dlqUrl }));
  });
  return bench;
}

/**
 * The request for `triggerId`'s current phase sent twice under `requestId` (replies at
 * `/actions/<requestId>`): its two copies, as two events, in the order received.
 */
export async function twoCopies(
  bench: Bench,
  triggerId: string,
  requestId: string,
): Promise<[SQSEvent, SQSEvent]> {
  const request = {
    triggerId,
    phaseId: bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID,
    requestId,
    reply: { slackResponseUrl: bench.slack.url(`/actions/${requestId}`) },
  };
  await bench.send(request);
  await bench.send(request);
  const { Records } = await bench.receive();
  expect(Records).toHaveLength(2);
  const [a, b] = Records;
  return [{ Records: [a!] }, { Records: [b!] }];
}

/** The bench's Console client whose phase approvals first run `before` (while the effect is claimed). */
export function approvingAfter(bench: Bench, before: () => Promise<void>): ConsoleClient {
  const real = createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    timeoutMs: 2_000,
    maxRetries: 0,
    mutationBudget: false,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  return {
    ...real,
    releasePipelineTriggers: {
      ...real.releasePipelineTriggers,
      approve: async (...args: Parameters<typeof real.releasePipelineTriggers.approve>) => {
        await before();
        return real.releasePipelineTriggers.approve(...args);
      },
    },
  };
}

/**
 * Another request (`otherRequestId`) for the same phase is sent and run to its end (it must
 * succeed); `whileClaimed` runs while its call holds the effect claim. Messages already on the
 * queue stay there, their receipt handles valid (no purge).
 */
export async function anotherRequestCalls(
  bench: Bench,
  other: { triggerId: string; phaseId: unknown; requestId: string },
  whileClaimed: () => Promise<void>,
): Promise<void> {
  await bench.send(other);
  const received = await bench.receive();
  const event: SQSEvent = { Records: received.Records.filter((r) => r.body.includes(other.requestId)) };
  expect(event.Records).toHaveLength(1);
  const worker = bench.worker({ client: approvingAfter(bench, whileClaimed) });
  expect((await bench.run(worker, event)).batchItemFailures).toEqual([]);
}
