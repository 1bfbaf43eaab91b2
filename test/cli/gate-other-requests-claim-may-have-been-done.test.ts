/**
 * Review s32: the CI gate of a request given up while another request for the same change holds
 * the effect claim. The deploy job's message, on its last receive, finds another request's claim
 * on the same phase approval (a person's /autopilot approve, another job under another id): that
 * request is calling now. Since ce480ac the wait is this request's own failure and its give-up is
 * told, but as "Could not approve…" with mayHaveBeenDone false: the gate exited 3 ("refused", read
 * as not done) while the other request approved the very phase. It must say "may have been done" (5).
 * Real worker on fauxqs and dynalite, the Console API sandbox; the other request's call is landed
 * with a hook (no sleeping); the gate's clock injected, the worker run at its pauses.
 */
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { anotherRequestCalls } from '../worker/copies.js';
import { benchForFile, onReceive } from '../worker/fixture.js';
import { runGate } from './gate.js';

const bench = benchForFile({ client: { maxRetries: 0 } });

it('a gate given up while another request approves the same phase is not told "refused" (3)', async () => {
  const requestId = 'deploy-78-canary';
  const phase = bench.api.sandbox.state.triggers.get('trg_5')?.currentPhaseID as string;
  const { code, io } = await runGate(bench, {
    triggerId: 'trg_5',
    phaseId: phase,
    requestedBy: 'ci:deploy',
    requestId,
    onPause: async (pause) => {
      if (pause !== 1) return;
      const mine = await bench.receive();
      expect(mine.Records).toHaveLength(1);
      // Another request for the same phase; while its call holds the claim, the gate's message has its last receive.
      await anotherRequestCalls(
        bench,
        { triggerId: 'trg_5', phaseId: phase, requestId: 'someone-else-approves' },
        async () => {
          await bench.run(bench.worker(), onReceive(mine, MAX_RECEIVE_COUNT));
        },
      );
    },
  });

  // The phase the job asked to approve is approved (by the other request); this one was given up.
  expect(bench.api.sandbox.state.triggers.get('trg_5')?.currentPhaseID).not.toBe(phase);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['dead-lettered']);
  // "Refused" reads "not done" to the deploy job: the change may have been made, check (5).
  expect(code, io.err()).toBe(5);
});
