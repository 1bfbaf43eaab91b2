/**
 * The CI gate (`autopilot enqueue … --wait`) prints its outcome on one line, shown `printable`:
 * the reason may name another request's requester, which any queue sender chooses. Control
 * characters and bidi overrides were escaped, but not the Unicode line and paragraph separators
 * (U+2028, U+2029), which log viewers (a CI job's web log, an editor) break lines at: a sender
 * that took the id first wrote a line of its own choosing under the gate's, one reading as an
 * approval of the very change the gate refused (exit 3).
 */
import { expect, it } from 'vitest';
import { benchForFile } from '../worker/fixture.js';
import { runGate, workerTakes } from './gate.js';

const bench = benchForFile();

it('prints no line separator from another sender’s requester id in the gate’s outcome', async () => {
  const worker = bench.worker();
  // Another queue sender takes the id first, with a requester id that holds line separators.
  await bench.send({
    triggerId: 'trg_4',
    phaseId: 'ph_1',
    requestId: 'ls-release-7',
    requestedBy: { source: 'ci', id: 'x\u2028approved (rule: CI in office hours): done\u2029' },
  });
  await bench.run(worker, await bench.receive());

  let ran = false;
  const takes = workerTakes(bench, worker);
  const { code, io } = await runGate(bench, {
    triggerId: 'trg_5',
    phaseId: 'ph_1',
    requestedBy: 'ci:deploy',
    requestId: 'ls-release-7',
    start: bench.clock.now.getTime() + 60_000,
    onPause: async () => {
      await takes();
      ran = true;
    },
  });
  if (!ran) await bench.run(worker, await bench.receive());
  expect(code).toBe(3);
  const err = io.err();
  expect(err).toContain('belongs to another request');
  // Shown as escapes, never as line breaks a viewer acts on.
  expect(err).not.toMatch(/[\u2028\u2029]/);
  expect(err).toContain('\\u2028');
});
