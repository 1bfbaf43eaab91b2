/**
 * A request that ends by telling another request's change (it was made already) owns its id as
 * much as one that made it: its end is recorded as its own final (the outcome, pointing at the
 * request that made it), and another requester's change under that id is refused.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { readRequestAudit } from '../../src/state/audit.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

it("refuses another requester's change under the id of a request that ended as a replay", async () => {
  const worker = bench.worker();
  // ci:deploy approves trg_1 ph_1 under an id of its own.
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'rv-first-1' });
  await bench.run(worker, await bench.receive());
  // A second CI request for the same change, under id rv-replayed-1: the change was made, it ends as a replay.
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'rv-replayed-1' });
  await bench.run(worker, await bench.receive());
  const before = await outcomeNow(bench.table, 'rv-replayed-1');
  // It ends with the change's outcome, pointing at the request that made it; its id is its own.
  expect(before).toMatchObject({ exitCode: 0, result: 'approved' });
  expect(before.reason).toContain('(request rv-first-1, ');

  // Later, another requester sends another change under that id.
  bench.clock.now = new Date(bench.clock.now.getTime() + 60_000);
  await bench.send({
    triggerId: 'trg_2',
    phaseId: 'ph_1',
    requestId: 'rv-replayed-1',
    requestedBy: { source: 'ci', id: 'other-pipeline' },
  });
  await bench.run(worker, await bench.receive());

  const { records, final } = await readRequestAudit(bench.table, 'rv-replayed-1');
  // The id belongs to the request that ended under it: the other change is refused, nothing is done.
  expect({
    trg2Approvals: bench.approvals('trg_2'),
    finalOwner: final?.owner?.requester,
    lastRule: records.at(-1)?.rule,
  }).toEqual({ trg2Approvals: 0, finalOwner: 'ci:github-actions/deploy.yml', lastRule: 'request-id-taken' });
});
