/**
 * A small chaos run (src/local/chaos.ts) end to end: the local stack's real queue, worker and
 * sandbox with faults injected and processes dying right after a put, then every check of the run,
 * the tell ledger's among them (what requesters and the channel were told, against each final).
 * No process dies after a put here: its batch comes back only after its leases (~25 s); `npm run
 * chaos` injects that fault.
 */
import { expect, it } from 'vitest';
import { chaosFailures, runChaos } from '../../src/local/chaos.js';

it('a small chaos run tells every end, never two ways, never the wrong one, and passes every check', async () => {
  const report = await runChaos({
    count: 80,
    seed: 3,
    dyingRate: 0,
    faults: { hangRate: 0 },
    drainTimeoutMs: 60_000,
  });
  expect(chaosFailures(report), JSON.stringify(report.telling)).toEqual([]);
  expect(report.telling.ended).toBeGreaterThan(0);
  // The check that every request recorded as done had its change applied read some.
  expect(report.doneChecked).toBeGreaterThan(0);
  expect(report.telling.posts.channel).toBeGreaterThan(0);
  expect(report.telling.posts.requester).toBeGreaterThan(0);
  expect(report.telling.owed.requester).toBeGreaterThan(0);
}, 120_000);
