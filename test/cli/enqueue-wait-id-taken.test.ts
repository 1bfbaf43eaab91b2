/**
 * `autopilot enqueue --wait` gates on its own request: under an id that belongs to another
 * request (ended or held), it exits 3 (refused), never 0 on the other request's approval.
 */
import { expect, it } from 'vitest';
import { readRequestAudit } from '../../src/state/audit.js';
import { benchForFile } from '../worker/fixture.js';
import { runGate, workerTakes } from './gate.js';

const bench = benchForFile();

it('`enqueue --wait` does not pass the gate of a request refused as request-id-taken', async () => {
  const worker = bench.worker();
  // ci:github-actions/deploy.yml's trg_4 approval, under release-7.
  await bench.send({ triggerId: 'trg_4', phaseId: 'ph_1', requestId: 'rv-release-7' });
  await bench.run(worker, await bench.receive());

  // Another pipeline gates its deploy on trg_5 under the same id.
  let ran = false;
  const takes = workerTakes(bench, worker);
  const { code, io } = await runGate(bench, {
    triggerId: 'trg_5',
    phaseId: 'ph_1',
    requestedBy: 'ci:other-pipeline',
    requestId: 'rv-release-7',
    start: bench.clock.now.getTime() + 60_000,
    // Each poll interval, the worker takes what is queued (the pinned clock moves the poll on).
    onPause: async () => {
      await takes();
      ran = true;
    },
  });
  if (!ran) await bench.run(worker, await bench.receive());

  // Its message was refused and trg_5 was not approved...
  const refused = (await readRequestAudit(bench.table, 'rv-release-7')).records.filter(
    (r) => r.requester === 'unproven ci:other-pipeline',
  );
  expect(refused.map((r) => r.rule)).toEqual(['request-id-taken']);
  expect(bench.approvals('trg_5')).toBe(0);
  // ...so its gate must not say "approved" (exit 0): 3 is "refused or dead-lettered".
  expect(code, io.err()).toBe(3);
});
