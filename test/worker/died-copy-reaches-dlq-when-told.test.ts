/**
 * A copy that died on its last receive is told given up by the release tick: "it waits in the
 * dead-letter queue for an operator (`autopilot dlq list`)". But its invocation died holding the
 * message: SQS moves it to the DLQ only once its visibility ends (the queue's visibility timeout,
 * 6 minutes deployed), minutes after that was told, so the operator who looks finds nothing. The
 * worker's own give-up makes the message visible at once for this reason (give-up.ts); the tick
 * must do the same with the receipt handle of that last receive.
 * Real worker and tick on fauxqs (a real receive, its real receipt handle) and dynalite.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { lambdaContext } from '../helpers/lambda.js';
import { copiesBench } from './copies.js';
import { basePolicy, copyTrigger, dyingAtStateRead, onReceive } from './fixture.js';
import { deployedTick } from './stuck.js';

const bench = copiesBench();

async function tickAt(iso: string): Promise<ReleaseSummary> {
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));
  return (await tick({ time: iso }, lambdaContext({ timeoutMs: 60_000 }))) as ReleaseSummary;
}

describe('a copy that died on its last receive, told given up by the tick', () => {
  it('is on its way to the DLQ when that is told, not minutes later', async () => {
    const id = 'ci-died-to-dlq';
    copyTrigger(bench, `trg_${id}`);
    const phaseId = bench.api.sandbox.state.triggers.get(`trg_${id}`)?.currentPhaseID;
    await bench.send({ triggerId: `trg_${id}`, phaseId, requestId: id });
    const event = await bench.receive();
    expect(event.Records).toHaveLength(1);
    const dying = dyingAtStateRead(bench, id);
    void bench.run(bench.worker({ table: dying.table }), onReceive(event, MAX_RECEIVE_COUNT));
    await dying.died;

    expect((await tickAt('2026-11-23T10:02:00Z')).givenUp).toEqual([id]);
    // Visible again at once: the event source's next receive is the one past maxReceiveCount, which
    // moves it to the DLQ (deployed). Still held by the dead invocation, it is in no DLQ yet.
    const again = await bench.emulators.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: bench.emulators.queueUrl, WaitTimeSeconds: 0 }),
    );
    expect((again.Messages ?? []).map((m) => m.MessageId)).toEqual([event.Records[0]!.messageId]);
  });
});
