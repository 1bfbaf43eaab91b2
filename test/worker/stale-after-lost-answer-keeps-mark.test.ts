/**
 * An approve whose first attempt reached the platform (the phase approved, the trigger moved on)
 * but whose answer was lost is retried by the client; the retry meets the phaseID guard (400: not
 * the current phase) and the request ends `stale`. Its own attempt may have made the change, so
 * the effect claim must keep its "an earlier call may have reached the platform" mark, as a
 * refusal after an unanswered attempt does: the stale path gave the claim back cleanly (deleting
 * it), and the next request for the same phase heard that nothing earlier had reached it.
 *
 * The Console API is the sandbox over HTTP; a fetch in front of it (lost-answer.ts) loses one
 * answer after the sandbox acted.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { claimEffect } from '../../src/state/effects.js';
import { lostAnswerBench } from './lost-answer.js';

// No 409 for a phase already approved: the retry meets the sandbox's phase guard.
const { bench, platform } = lostAnswerBench({ maxRetries: 1, conflicts: false });

it('keeps the effect mark when a retry after a lost answer finds the phase already moved on', async () => {
  const phase = bench.api.sandbox.state.triggers.get('trg_5')?.currentPhaseID as string;
  await bench.send({ triggerId: 'trg_5', phaseId: phase, requestId: 'stale-after-lost' });
  platform.loseAnswers = 1;
  expect(await bench.run(platform.worker, await bench.receive())).toEqual({ batchItemFailures: [] });

  // The first attempt approved it; the retry was refused by the phase guard.
  expect(
    bench.api.sandbox.state.triggers.get('trg_5')?.actions.filter((a) => a.phaseID === phase),
  ).toHaveLength(1);
  const final = await readFinal(bench.table, 'stale-after-lost');
  expect(final?.result).toBe('stale');
  expect(final?.reason).toMatch(/may have been this request that approved it/);

  // The next claim of the same effect hears that an earlier call may have made the change.
  // (A given-back claim's lock is 0: any time after it finds the claim run out.)
  const next = await claimEffect(bench.table, `approve_phase#trg_5#${phase}`, {
    owner: 'next-owner',
    lockExpiresAt: 2,
    nowMs: 1,
  });
  expect(next).toMatchObject({ claimed: true, earlierMayHaveReached: true });
});
