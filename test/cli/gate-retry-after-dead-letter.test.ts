/**
 * A CI job whose request was given up (429s on every receive: dead-lettered, rule
 * retries-exhausted) is retried with the same request id, as the README recommends. The retry is a
 * new message the worker decides afresh, and approves once the platform answers again; its gate
 * must wait for that outcome, not exit 3 on the first request's dead-lettering at its first look.
 */
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile, onReceive, sentAt } from '../worker/fixture.js';
import { runGate } from './gate.js';

const bench = benchForFile({ client: { maxRetries: 0 } });

it('a retried job under the id of a given-up request gates on the retry, not on the old dead-lettering', async () => {
  const worker = bench.worker();
  const phase = bench.api.sandbox.state.triggers.get('trg_6')?.currentPhaseID as string;
  // The first job's request meets 429s on every receive and is given up on the last one.
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  await bench.send({
    triggerId: 'trg_6',
    phaseId: phase,
    requestedBy: { source: 'ci', id: 'deploy' },
    requestId: 'deploy-41-canary',
  });
  const first = await bench.receive();
  await bench.run(worker, onReceive(first, MAX_RECEIVE_COUNT));
  expect((await readAudit(bench.table, 'deploy-41-canary')).map((r) => r.rule)).toEqual([
    'retries-exhausted',
  ]);
  await bench.purge();

  // The platform answers again; the job is retried with the same request id.
  bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  bench.clock.now = new Date(bench.clock.now.getTime() + 30 * 60_000);
  // The worker takes the retry, sent now, after the give-up (SQS stamps it; the emulator would
  // stamp the machine's time, and the bench's clock is pinned).
  const retryTaken = async () => {
    await bench.run(worker, sentAt(await bench.receive(), bench.clock.now));
  };
  const { code, io } = await runGate(bench, {
    triggerId: 'trg_6',
    phaseId: phase,
    requestedBy: 'ci:deploy',
    requestId: 'deploy-41-canary',
    onPause: retryTaken,
  });
  // Let the worker take the retry if the gate stopped before it did.
  await retryTaken();

  // The retry approved the phase...
  expect(bench.api.sandbox.state.triggers.get('trg_6')?.currentPhaseID).not.toBe(phase);
  expect((await readAudit(bench.table, 'deploy-41-canary')).map((r) => r.result)).toContain('approved');
  // ...so the gate that waited for it must say so (0), not the first request's dead-lettering (3).
  expect(code, io.err()).toBe(0);
});
