/**
 * `enqueue … --wait` gates a deploy job. An approve whose first attempt reached the platform (the
 * phase approved) but whose answer was lost is retried by the client; the retry is refused (a 409
 * "already approved": `rejected`, or the phase guard's 400: `stale`), and the worker's final says an
 * earlier attempt of this very request may have made the change. The gate exited 3, "refused": a
 * deploy job reads "not done" about a change that is made. It now exits 5, "may have been done:
 * check", naming the reason. The worker is the bench's real one behind a platform that loses one
 * answer (test/worker/lost-answer.ts); the sandbox over HTTP; SQS and DynamoDB on the emulators;
 * the CLI's clock is injected and its pauses run the worker.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { lostAnswerBench } from '../worker/lost-answer.js';
import { runGate, workerTakes } from './gate.js';

/** Read by the platform at each call: a retry's approve of an approved phase is a 409, or (false) meets the phase guard. */
const mode = { maxRetries: 1, conflicts: true };
const { bench, platform } = lostAnswerBench(mode);

/** The CI job: `enqueue approve … --wait` as ci:deploy; the worker runs at each of the gate's pauses. */
async function gate(triggerId: string, phaseId: string, requestId: string) {
  const onPause = workerTakes(bench, platform.worker);
  const { code, io } = await runGate(bench, {
    triggerId,
    phaseId,
    requestedBy: 'ci:deploy',
    requestId,
    onPause,
  });
  return { code, err: io.err() };
}

const approvals = (triggerId: string, phaseId: string) =>
  bench.api.sandbox.state.triggers.get(triggerId)?.actions.filter((a) => a.phaseID === phaseId) ?? [];

it('a refusal after a lost answer that may have been this request is not told as "refused"', async () => {
  mode.conflicts = true;
  const phase = bench.api.sandbox.state.triggers.get('trg_5')?.currentPhaseID as string;
  platform.loseAnswers = 1;

  const { code, err } = await gate('trg_5', phase, 'deploy-52-canary');

  // The phase is approved, once: by this request's first attempt.
  expect(approvals('trg_5', phase)).toHaveLength(1);
  expect(await readFinal(bench.table, 'deploy-52-canary')).toMatchObject({
    result: 'rejected',
    mayHaveBeenDone: true,
  });
  expect(code, err).not.toBe(3);
  expect(code, err).toBe(5);
  expect(err).toContain('may have been done');
  expect(err).toContain('may have reached the Console API');
});

it('a stale end whose own earlier attempt may have approved the phase is not told as "refused"', async () => {
  mode.conflicts = false;
  const phase = bench.api.sandbox.state.triggers.get('trg_6')?.currentPhaseID as string;
  platform.loseAnswers = 1;

  const { code, err } = await gate('trg_6', phase, 'deploy-53-canary');

  expect(approvals('trg_6', phase)).toHaveLength(1);
  expect(await readFinal(bench.table, 'deploy-53-canary')).toMatchObject({
    result: 'stale',
    mayHaveBeenDone: true,
  });
  expect(code, err).toBe(5);
  expect(err).toContain('may have been this request that approved it');
});
