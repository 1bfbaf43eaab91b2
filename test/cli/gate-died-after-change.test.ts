/**
 * A deploy job's gate (`autopilot enqueue approve … --wait`) whose request's worker makes the change
 * on its last receive and dies before it records the end (a timeout right after the Console API
 * answered): the release tick took the completed change for an end already told, nothing was
 * recorded, and the gate waited out its timeout (4) for a change that was made. The tick now
 * records and tells that end as a copy replays it: the gate ends with it (0) at its next look.
 * Real worker (its table stops answering at the final's put) and the deployed tick on fauxqs and
 * dynalite; the gate's clock injected, the worker and the tick run at its pauses.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { lambdaContext } from '../helpers/lambda.js';
import { basePolicy, benchForFile, copyTrigger, dyingAtCommand, onReceive } from '../worker/fixture.js';
import { deployedTick } from '../worker/stuck.js';
import { runGate } from './gate.js';

const bench = benchForFile({ client: { maxRetries: 0 } });

it('a gate whose request died on its last receive after making the change ends done (0), not at its timeout (4)', async () => {
  const requestId = 'deploy-89-died-after-change';
  copyTrigger(bench, 'trg_gc1');
  const phase = bench.api.sandbox.state.triggers.get('trg_gc1')?.currentPhaseID as string;
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));

  const { code, io, pauses } = await runGate(bench, {
    triggerId: 'trg_gc1',
    phaseId: phase,
    requestedBy: 'ci:deploy',
    requestId,
    onPause: async (pause) => {
      if (pause === 1) {
        // Its message on its last receive: the change is made, and the invocation dies at the final's put.
        const event = await bench.receive();
        expect(event.Records).toHaveLength(1);
        const dying = dyingAtCommand(
          bench,
          (command) =>
            command instanceof PutItemCommand &&
            command.input.Item?.pk?.S === `audit#${requestId}` &&
            command.input.Item?.sk?.S === 'final',
        );
        void bench.run(bench.worker({ table: dying.table }), onReceive(event, MAX_RECEIVE_COUNT));
        await dying.died;
      } else if (pause === 2) {
        // The release tick, two minutes on: the attempt is surely over.
        await tick({ time: '2026-11-23T10:02:00Z' }, lambdaContext({ timeoutMs: 60_000 }));
      }
    },
  });

  expect(bench.approvals('trg_gc1')).toBe(1);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual(['approved']);
  expect(code, io.err()).toBe(0);
  expect(pauses, 'the gate waited out its timeout').toBeLessThan(5);
});
