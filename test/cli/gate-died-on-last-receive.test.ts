/**
 * A deploy job's gate (`autopilot enqueue approve … --wait`) whose request's worker dies on its last
 * receive (a Lambda timeout, a crash): no catch block runs, SQS moves the message to the DLQ, and
 * nothing was recorded, so the gate waited out its whole timeout and exited 4 "the worker has
 * recorded nothing". The release tick now tells the give-up once the attempt is surely over, and
 * writes its `dead-lettered` record: the gate ends with it (3) at its next look.
 * Real worker (its table stops answering at the death) and the deployed tick on fauxqs and
 * dynalite; the gate's clock injected, the worker and the tick run at its pauses.
 */
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { lambdaContext } from '../helpers/lambda.js';
import { basePolicy, benchForFile, copyTrigger, dyingAtStateRead, onReceive } from '../worker/fixture.js';
import { deployedTick } from '../worker/stuck.js';
import { runGate } from './gate.js';

const bench = benchForFile({ client: { maxRetries: 0 } });

it('a gate whose request died on its last receive ends with the give-up (3), not at its timeout (4)', async () => {
  const requestId = 'deploy-88-died';
  copyTrigger(bench, 'trg_gd1');
  const phase = bench.api.sandbox.state.triggers.get('trg_gd1')?.currentPhaseID as string;
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));

  const { code, io, pauses } = await runGate(bench, {
    triggerId: 'trg_gd1',
    phaseId: phase,
    requestedBy: 'ci:deploy',
    requestId,
    onPause: async (pause) => {
      if (pause === 1) {
        // Its message on its last receive: the invocation dies at its read of the request's state.
        const event = await bench.receive();
        expect(event.Records).toHaveLength(1);
        const dying = dyingAtStateRead(bench, requestId);
        void bench.run(bench.worker({ table: dying.table }), onReceive(event, MAX_RECEIVE_COUNT));
        await dying.died;
      } else if (pause === 2) {
        // The release tick, two minutes on: the attempt is surely over.
        await tick({ time: '2026-11-23T10:02:00Z' }, lambdaContext({ timeoutMs: 60_000 }));
      }
    },
  });

  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['dead-lettered']);
  expect(bench.approvals('trg_gd1')).toBe(0);
  expect(code, io.err()).toBe(3);
  expect(pauses, 'the gate waited out its timeout').toBeLessThan(5);
});
