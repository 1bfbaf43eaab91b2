/**
 * A message under a request id another requester's request owns is refused (request-id-taken): it
 * is not a copy of that request and must never end it, nor be told its end. On its last receive the
 * worker marked it before reading the request (so that a copy dying there is told by the release
 * tick), and the refusal left that mark: the tick then found the owner's end stored and untold (the
 * owner's copy died after writing its final, before telling it) and told it to the refused message's
 * reply URL, recording the owner's "approved" under the refused message. A refused message now
 * leaves no mark, and the tick tells no message that does not own its request id (one that died
 * before its refusal, say). Real worker on fauxqs and dynalite, the Console API sandbox, the Slack
 * stand-in, and the deployed tick.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { lastReceivePages } from '../../src/state/last-receive.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { lambdaContext } from '../helpers/lambda.js';
import { copiesBench } from './copies.js';
import { basePolicy, copyTrigger, dyingAfterPut, dyingAtStateRead, onReceive } from './fixture.js';
import { deployedTick } from './stuck.js';

const bench = copiesBench();

async function tickAt(iso: string): Promise<ReleaseSummary> {
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));
  return (await tick({ time: iso }, lambdaContext({ timeoutMs: 60_000 }))) as ReleaseSummary;
}

const postsTo = (path: string) => bench.slack.posts.filter((p) => p.path === path);

async function marks(): Promise<string[]> {
  const out: string[] = [];
  for await (const page of lastReceivePages(bench.table)) out.push(...page.map((m) => m.messageId));
  return out;
}

/**
 * `id`, ci:github-actions/deploy.yml's approval of trg_<id>: its first receive makes the change and
 * dies right after its final is in the table (untold: no copy of it has come back yet).
 */
async function ownerEndsUntold(id: string): Promise<void> {
  copyTrigger(bench, `trg_${id}`);
  await bench.send({
    triggerId: `trg_${id}`,
    phaseId: bench.api.sandbox.state.triggers.get(`trg_${id}`)?.currentPhaseID,
    requestId: id,
    reply: { slackResponseUrl: bench.slack.url(`/actions/${id}`) },
  });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const dying = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'final');
  void bench.run(bench.worker({ table: dying.table }), event);
  await dying.died;
  expect(bench.approvals(`trg_${id}`)).toBe(1);
  expect((await readFinal(bench.table, id))?.result).toBe('approved');
}

/** Another pipeline's request under `id` (for trg_other), on its last receive. */
async function otherPipelinesMessage(id: string): Promise<SQSEvent> {
  await bench.send({
    triggerId: 'trg_other',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'other-pipeline' },
    requestId: id,
    reply: { slackResponseUrl: bench.slack.url(`/actions/${id}-other`) },
  });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  return onReceive(event, MAX_RECEIVE_COUNT);
}

describe('a message refused on its last receive because another request owns its id', () => {
  it('leaves no mark, and the release tick tells it nothing of the owner', async () => {
    const id = 'ci-owned-untold';
    await ownerEndsUntold(id);
    const refused = await otherPipelinesMessage(id);
    expect((await bench.run(bench.worker(), refused)).batchItemFailures).toEqual([]);
    const refusedId = refused.Records[0]!.messageId;
    expect(await marks()).not.toContain(refusedId);

    const tick = await tickAt('2026-11-23T10:02:00Z');
    expect([tick.givenUp, tick.endsTold]).toEqual([[], []]);
    expect(postsTo(`/actions/${id}-other`)).toEqual([]);
    // No end of the owner's is recorded under the refused message: its records are its refusal only.
    const underRefused = (await readAudit(bench.table, id)).filter((r) => r.messageId === refusedId);
    expect(underRefused.map((r) => [r.result, r.rule])).toEqual([['dead-lettered', 'request-id-taken']]);
  });

  it('is not told by the tick when it died before its refusal (at its read of the request)', async () => {
    const id = 'ci-owned-died-unrefused';
    await ownerEndsUntold(id);
    const refused = await otherPipelinesMessage(id);
    const dying = dyingAtStateRead(bench, id);
    void bench.run(bench.worker({ table: dying.table }), refused);
    await dying.died;
    const refusedId = refused.Records[0]!.messageId;
    expect(await marks()).toContain(refusedId);

    const tick = await tickAt('2026-11-23T10:02:00Z');
    expect([...tick.givenUp, ...tick.endsTold]).not.toContain(id);
    expect(postsTo(`/actions/${id}-other`)).toEqual([]);
    expect((await readAudit(bench.table, id)).filter((r) => r.messageId === refusedId)).toEqual([]);
    // Looked at once: the mark goes, and the next tick tells nothing either.
    expect(await marks()).not.toContain(refusedId);
    expect((await tickAt('2026-11-23T10:03:00Z')).endsTold).not.toContain(id);
    expect(postsTo(`/actions/${id}-other`)).toEqual([]);
  });
});
