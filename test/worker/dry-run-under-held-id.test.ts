/**
 * A dry run of a change is another request than the change: under a held request's id (anyone
 * may speak as the same `ci` requester), it neither replaces the held request nor ends it.
 */
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from './fixture.js';
import { releaseDeps } from './questions.js';

const bench = benchForFile();

it('a dry run under a held request id does not replace or end the held request', async () => {
  const worker = bench.worker();
  // Monday 20:00 UTC: outside CI office hours, so ci:deploy's approval is held until Tuesday 09:00.
  bench.clock.now = new Date('2026-11-23T20:00:00Z');
  await bench.send({ triggerId: 'trg_3', phaseId: 'ph_1', requestId: 'rv-held-dry-1' });
  await bench.run(worker, await bench.receive());
  expect((await listHeld(bench.table)).find((h) => h.requestId === 'rv-held-dry-1')?.why).toBe('window');

  // Any CI sender: same requester, same change, same id, but a dry run.
  bench.clock.now = new Date('2026-11-23T20:05:00Z');
  await bench.send({ triggerId: 'trg_3', phaseId: 'ph_1', requestId: 'rv-held-dry-1', dryRun: true });
  await bench.run(worker, await bench.receive());
  const held = (await listHeld(bench.table)).find((h) => h.requestId === 'rv-held-dry-1');

  // Tuesday 09:01: the window is open, the tick sends the held request back, the worker runs it.
  bench.clock.now = new Date('2026-11-24T09:01:00Z');
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  await bench.run(worker, await bench.receive());
  const outcome = await outcomeNow(bench.table, 'rv-held-dry-1');

  expect({
    heldDryRun: held?.request.dryRun ?? false,
    approvals: bench.approvals('trg_3'),
    result: outcome.result,
  }).toEqual({ heldDryRun: false, approvals: 1, result: 'approved' });
});
