/**
 * A request given up on its last receive (SQS moves it to the DLQ) is an outcome its requester and
 * the channel are told, and the audit trail ends with it, as the other dead-lettered ends (invalid,
 * not proven, dated in the future) are. Those count in `Decisions` (Outcome = the DLQ reason); the
 * give-up put only `DeadLettered`, so the dashboard's "Decisions" graph, the one that answers "is
 * automation acting?", never showed requests the worker gave up on. Real worker on fauxqs (real
 * receive counts) and dynalite, the Console API sandbox failing every mutation with 503s, the Slack
 * stand-in; its metric lines captured.
 */
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { beforeEach, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { receiveEvent } from '../helpers/lambda.js';
import { emfProblems } from '../observability/emf.js';
import { benchForFile } from './fixture.js';

// One attempt per receive: each receive is one failed call.
const bench = benchForFile({ client: { maxRetries: 0 } });

beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  bench.api.sandbox.setFaults({ errorRate: 0, rateLimitRate: 0 });
  await bench.purge();
  await bench.emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: bench.emulators.dlqUrl }));
});

it('counts a request given up on its last receive in Decisions, as the DLQ reason, once', async () => {
  const lines: string[] = [];
  const worker = bench.worker({
    metrics: createMetrics({
      service: 'worker',
      sink: (l) => lines.push(l),
      now: () => bench.clock.now.getTime(),
    }),
  });
  bench.api.sandbox.setFaults({ errorRate: 1, only: 'mutations' });
  await bench.send({
    triggerId: 'trg_3',
    phaseId: bench.api.sandbox.state.triggers.get('trg_3')?.currentPhaseID,
    requestId: 'ci-given-up-counted',
  });
  for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++) {
    const event = await receiveEvent(bench.queue, { max: 1, visibilityTimeout: 0 });
    expect(event.Records[0]?.attributes.ApproximateReceiveCount).toBe(String(receive));
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
  }

  const mine = lines
    .map((l) => {
      expect(emfProblems(l)).toEqual([]);
      return JSON.parse(l) as Record<string, unknown>;
    })
    .filter((l) => l.requestId === 'ci-given-up-counted');
  expect(mine.filter((l) => 'DeadLettered' in l).map((l) => l.Reason)).toEqual(['retries-exhausted']);
  // What the dashboard's "Decisions (worker)" graph sums (SEARCH over Service, Action, Outcome).
  const decisions = mine.filter((l) => 'Decisions' in l);
  expect(decisions.map((l) => [l.Service, l.Action, l.Outcome, l.Decisions])).toEqual([
    ['worker', 'approve_phase', 'retries-exhausted', 1],
  ]);
});
