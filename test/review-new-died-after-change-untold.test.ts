/**
 * A copy that dies on its last receive right after its call made the change (the effect marked
 * completed, the final not yet written: a timeout, a crash) is the case the release tick's look
 * exists for: nothing of it runs after, so nobody hears the end. The tick takes the completed
 * effect for an end already told and deletes the mark: the requester's last word stays "queued",
 * the channel hears nothing, no final is written, and a CI gate waits out its timeout (exit 4).
 * Real worker on fauxqs and dynalite (its table stops answering at the final's put), the Console
 * API sandbox, the Slack stand-in, and the deployed tick.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../src/queue/redrive.js';
import { readFinal } from '../src/state/audit.js';
import type { ReleaseSummary } from '../src/worker/release.js';
import { lambdaContext } from './helpers/lambda.js';
import { copiesBench } from './worker/copies.js';
import { basePolicy, copyTrigger, dyingAtCommand, onReceive } from './worker/fixture.js';
import { deployedTick } from './worker/stuck.js';

const bench = copiesBench();

async function tickAt(iso: string): Promise<ReleaseSummary> {
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));
  return (await tick({ time: iso }, lambdaContext({ timeoutMs: 60_000 }))) as ReleaseSummary;
}

describe('a copy that dies on its last receive after its call made the change', () => {
  it('is told to its requester by the release tick, not left at "queued"', async () => {
    const id = 'ci-died-after-change';
    copyTrigger(bench, `trg_${id}`);
    const phaseId = bench.api.sandbox.state.triggers.get(`trg_${id}`)?.currentPhaseID;
    await bench.send({
      triggerId: `trg_${id}`,
      phaseId,
      requestId: id,
      reply: { slackResponseUrl: bench.slack.url(`/actions/${id}`) },
    });
    const event = await bench.receive();
    const dying = dyingAtCommand(
      bench,
      (command) =>
        command instanceof PutItemCommand &&
        command.input.Item?.pk?.S === `audit#${id}` &&
        command.input.Item?.sk?.S === 'final',
    );
    void bench.run(bench.worker({ table: dying.table }), onReceive(event, MAX_RECEIVE_COUNT));
    await dying.died;
    expect(bench.approvals(`trg_${id}`)).toBe(1);

    await tickAt('2026-11-23T10:02:00Z');
    await tickAt('2026-11-23T10:03:00Z');
    const told = bench.slack.posts.filter((p) => p.path === `/actions/${id}`);
    // Some end is told (the change made), and recorded for the CI gate; today: nothing, and no final.
    expect(told).toHaveLength(1);
    expect(await readFinal(bench.table, id)).toBeDefined();
  });
});
