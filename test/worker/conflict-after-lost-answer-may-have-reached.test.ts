/**
 * A mutation whose first attempt reached the platform and made the change, but whose answer was
 * lost (the connection broke after the request went out), is retried by the client; the retry
 * meets a platform that answers 409 ("already approved", "already archived"). The worker told
 * that as a plain refusal (":x: The Console API refused to …", result `rejected`, `enqueue
 * --wait` exit 3): the person reads "not done" about a change this very request made. It must
 * say that an earlier attempt may have made the change, as the 400 (stale) path already does.
 *
 * The Console API is the sandbox over HTTP; a fetch in front of it (lost-answer.ts) plays the two
 * things the sandbox does not: an answer lost after the effect, and a 409 for a change already made.
 */
import { describe, expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { channelPostsAbout } from './fixture.js';
import { lostAnswerBench } from './lost-answer.js';

const { bench, platform } = lostAnswerBench({ maxRetries: 1, conflicts: true });

describe('a retry answered 409 after the first attempt made the change', () => {
  it('does not tell an approval this request made as a plain refusal', async () => {
    const phase = bench.api.sandbox.state.triggers.get('trg_5')?.currentPhaseID as string;
    const from = bench.slack.posts.length;
    await bench.send({ triggerId: 'trg_5', phaseId: phase, requestId: 'conflict-approve' });
    platform.loseAnswers = 1;
    expect(await bench.run(platform.worker, await bench.receive())).toEqual({ batchItemFailures: [] });

    // The platform approved it, once: the first attempt did.
    expect(
      bench.api.sandbox.state.triggers.get('trg_5')?.actions.filter((a) => a.phaseID === phase),
    ).toHaveLength(1);
    const final = await readFinal(bench.table, 'conflict-approve');
    const [audit] = await readAudit(bench.table, 'conflict-approve');
    // What people read must leave room for the change having been made by this very request.
    expect(final?.reason).toMatch(/may have reached/);
    expect(audit?.reason).toMatch(/may have reached/);
    const told = channelPostsAbout(bench, 'conflict-approve', from);
    expect(told).toHaveLength(1);
    expect(told[0]).not.toContain(':x: The Console API refused');
  });

  it('does not tell an archive this request made as a plain refusal', async () => {
    const from = bench.slack.posts.length;
    expect(bench.api.sandbox.state.configs.get('feature_tour')?.archived).toBe(false);
    await bench.send({
      action: 'archive_config',
      configId: 'feature_tour',
      reason: 'unused',
      requestId: 'conflict-archive',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
    });
    platform.loseAnswers = 1;
    expect(await bench.run(platform.worker, await bench.receive())).toEqual({ batchItemFailures: [] });

    expect(bench.api.sandbox.state.configs.get('feature_tour')?.archived).toBe(true);
    const final = await readFinal(bench.table, 'conflict-archive');
    expect(final?.reason).toMatch(/may have reached/);
    const told = channelPostsAbout(bench, 'conflict-archive', from);
    expect(told).toHaveLength(1);
    expect(told[0]).not.toContain(':x: The Console API refused');
  });

  it('still tells a 409 on a first attempt (someone else made the change) as the refusal it is', async () => {
    const trigger = bench.api.sandbox.state.triggers.get('trg_6');
    const phase = trigger?.currentPhaseID as string;
    trigger?.actions.push({ timeMs: 0, phaseID: phase, actorName: 'someone', actorID: 'usr_1' });
    await bench.send({ triggerId: 'trg_6', phaseId: phase, requestId: 'conflict-other' });
    expect(await bench.run(platform.worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    const final = await readFinal(bench.table, 'conflict-other');
    expect(final?.result).toBe('rejected');
    expect(final?.reason).not.toMatch(/may have/);
  });
});
