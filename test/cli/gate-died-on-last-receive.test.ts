/**
 * A deploy job's gate (`autopilot enqueue approve … --wait`) whose request's worker dies on its last
 * receive (a Lambda timeout, a crash): no catch block runs, SQS moves the message to the DLQ, and
 * nothing was recorded, so the gate waited out its whole timeout and exited 4 "the worker has
 * recorded nothing". The release tick now tells the request's end once the attempt is surely over:
 * the give-up (3) when it died before the change, the change's own end (0) when it died between
 * the Console API's answer and the final. The gate ends with it at its next look.
 * Real worker (its table stops answering at the death) and the deployed tick on fauxqs and
 * dynalite; the gate's clock injected, the worker and the tick run at its pauses.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { lambdaContext } from '../helpers/lambda.js';
import {
  basePolicy,
  benchResetEachTest,
  copyTrigger,
  dyingAtCommand,
  dyingAtStateRead,
  onReceive,
} from '../worker/fixture.js';
import { deployedTick } from '../worker/stuck.js';
import { runGate } from './gate.js';

const bench = benchResetEachTest({ client: { maxRetries: 0 } });

/**
 * The gate on a fresh trigger's phase: at its first pause the request's message, on its last
 * receive, runs in a worker that dies where `dying` says; at its second the release tick runs,
 * two minutes on (the attempt is surely over).
 */
async function gateWhoseWorkerDies(
  requestId: string,
  triggerId: string,
  dying: () => { table: StateTable; died: Promise<void> },
) {
  copyTrigger(bench, triggerId);
  const phase = bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID as string;
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));
  return runGate(bench, {
    triggerId,
    phaseId: phase,
    requestedBy: 'ci:deploy',
    requestId,
    onPause: async (pause) => {
      if (pause === 1) {
        const event = await bench.receive();
        expect(event.Records).toHaveLength(1);
        const { table, died } = dying();
        void bench.run(bench.worker({ table }), onReceive(event, MAX_RECEIVE_COUNT));
        await died;
      } else if (pause === 2) {
        await tick({ time: '2026-11-23T10:02:00Z' }, lambdaContext({ timeoutMs: 60_000 }));
      }
    },
  });
}

it('a gate whose request died on its last receive ends with the give-up (3), not at its timeout (4)', async () => {
  const requestId = 'deploy-88-died';
  // The invocation dies at its read of the request's state.
  const { code, io, pauses } = await gateWhoseWorkerDies(requestId, 'trg_gd1', () =>
    dyingAtStateRead(bench, requestId),
  );

  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['dead-lettered']);
  expect(bench.approvals('trg_gd1')).toBe(0);
  expect(code, io.err()).toBe(3);
  expect(pauses, 'the gate waited out its timeout').toBeLessThan(5);
});

it('a gate whose request died on its last receive after making the change ends done (0), not at its timeout (4)', async () => {
  const requestId = 'deploy-89-died-after-change';
  // The change is made, and the invocation dies at the final's put.
  const { code, io, pauses } = await gateWhoseWorkerDies(requestId, 'trg_gc1', () =>
    dyingAtCommand(
      bench,
      (command) =>
        command instanceof PutItemCommand &&
        command.input.Item?.pk?.S === `audit#${requestId}` &&
        command.input.Item?.sk?.S === 'final',
    ),
  );

  expect(bench.approvals('trg_gc1')).toBe(1);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['approved']);
  expect(code, io.err()).toBe(0);
  expect(pauses, 'the gate waited out its timeout').toBeLessThan(5);
});
