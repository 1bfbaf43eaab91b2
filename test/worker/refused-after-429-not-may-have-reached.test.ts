/**
 * A mutation whose first attempt was answered 429 (the platform refused it: nothing was done) is
 * retried by the client; the retry is refused for good (a 409: someone else approved the phase).
 * The worker told that as ":warning: The Console API refused …, but an earlier attempt may have
 * done it" and kept the effect's reached mark: a 429 is an answer, so no earlier attempt of this
 * request can have made the change. Only an attempt left without an answer may have.
 *
 * The Console API is the sandbox over HTTP; a fetch in front of it (lost-answer.ts) plays the
 * platform's 429 and its 409 for a phase already approved.
 */
import { describe, expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { channelPostsAbout } from './fixture.js';
import { lostAnswerBench } from './lost-answer.js';

const { bench, platform } = lostAnswerBench({ maxRetries: 2, conflicts: true });

describe('a refusal after a 429', () => {
  it('is told as the refusal it is: the 429 was an answer, nothing of ours was done', async () => {
    const trigger = bench.api.sandbox.state.triggers.get('trg_6');
    const phase = trigger?.currentPhaseID as string;
    // Someone else approved the phase; this request's first attempt is refused with a 429.
    trigger?.actions.push({ timeMs: 0, phaseID: phase, actorName: 'someone', actorID: 'usr_1' });
    const from = bench.slack.posts.length;
    await bench.send({ triggerId: 'trg_6', phaseId: phase, requestId: 'refused-after-429' });
    platform.rateLimit = 1;
    expect(await bench.run(platform.worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(platform.rateLimit).toBe(0); // the 429 was met, and the call retried

    const final = await readFinal(bench.table, 'refused-after-429');
    expect(final?.result).toBe('rejected');
    expect(final?.reason).not.toMatch(/may have/);
    const told = channelPostsAbout(bench, 'refused-after-429', from);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(':x: The Console API refused');
    expect(told[0]).not.toMatch(/may have/);
  });
});
