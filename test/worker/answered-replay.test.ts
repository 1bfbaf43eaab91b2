/**
 * An Approve click's copy whose change another request made first: the worker tells the copy
 * "already done (by request X)" without calling the API, but the question it answered stayed held
 * until its hourly look: `held` said "approved by U0ADMIN, on its way" and a CI gate on the asked
 * id waited, for a change that was already made. The question ends with the copy, saying who made
 * the change. The real webhook and worker on the emulators and the sandbox.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { listHeld } from '../../src/state/held.js';
import { benchResetEachTest } from './fixture.js';
import { askQuestion, clickApprove } from './questions.js';

const bench = benchResetEachTest();

it('ends the question at once when its approved copy replays another request’s change', async () => {
  const value = await askQuestion(bench, 'trg_ar1', 'ar-asked-1');
  // Meanwhile a CI job approves the same phase in office hours: the change is made.
  await bench.send({ triggerId: 'trg_ar1', phaseId: 'ph_1', requestId: 'ar-ci-1' });
  await bench.run(bench.worker(), await bench.receive());
  expect(bench.approvals('trg_ar1')).toBe(1);

  // U0ADMIN approves the question; the copy finds the change made and replays it.
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  const copyId = await clickApprove(bench, value);
  await bench.run(bench.worker(), await bench.receive());
  expect(bench.approvals('trg_ar1')).toBe(1);
  expect((await outcomeNow(bench.table, copyId)).exitCode).toBe(0);

  // The question ended with it, before any hourly look: not held, and its gate sees the truth.
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('ar-asked-1');
  const asked = await outcomeNow(bench.table, 'ar-asked-1');
  expect(asked, JSON.stringify(asked)).toMatchObject({ exitCode: 0, result: 'approved' });
  expect(asked.reason).toContain('request ar-ci-1');
  expect(asked.reason).toContain(`answered by slack:U0ADMIN (request ${copyId})`);
});
