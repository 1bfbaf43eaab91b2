/**
 * Review s32: the CI gate and a give-up deferred to a live copy. A deploy job's request is on the
 * queue twice under one request id (an earlier job of the pipeline timed out and was retried with
 * the same id, or the SDK retried SendMessage): the other copy was refused 429 and put back, so it
 * is registered live. The gate's own message fails on its last receive and defers to that copy (no
 * `dead-lettered` record under its message id); the copy deferred to then gives up on its last
 * receive and writes the request's one `dead-lettered` record, under its own message id. The gate
 * reads only a dead-lettering of its own message, so it waited out its whole timeout and exited 4
 * "still held at the timeout", though the request had ended given up (3).
 * Real worker on fauxqs and dynalite, the Console API sandbox refusing with 429s; the gate's clock
 * injected, the worker run at its pauses.
 */
import type { SQSEvent } from 'aws-lambda';
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile, onReceive } from '../worker/fixture.js';
import { runGate } from './gate.js';

// One attempt per receive: each receive is one refused call.
const bench = benchForFile({ client: { maxRetries: 0 } });

it("a gate whose give-up deferred to a live copy ends with that copy's give-up (3), not at its timeout (4)", async () => {
  const requestId = 'deploy-77-canary';
  const worker = bench.worker();
  const phase = bench.api.sandbox.state.triggers.get('trg_5')?.currentPhaseID as string;
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });

  // The other copy of the request: refused 429 on its 4th receive, put back and registered live.
  await bench.send({
    triggerId: 'trg_5',
    phaseId: phase,
    requestedBy: { source: 'ci', id: 'deploy' },
    requestId,
  });
  const other: SQSEvent = await bench.receive();
  expect(other.Records).toHaveLength(1);
  const otherId = other.Records[0]!.messageId;
  expect((await bench.run(worker, onReceive(other, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(
    1,
  );

  const { code, io, pauses } = await runGate(bench, {
    triggerId: 'trg_5',
    phaseId: phase,
    requestedBy: 'ci:deploy',
    requestId,
    onPause: async (pause) => {
      if (pause === 1) {
        // The gate's own message on its last receive: refused 429, it defers to the live copy.
        const { Records } = await bench.receive();
        const mine: SQSEvent = { Records: Records.filter((r) => r.messageId !== otherId) };
        expect(mine.Records).toHaveLength(1);
        await bench.run(worker, onReceive(mine, MAX_RECEIVE_COUNT));
        expect(bench.logs.some((l) => l.message.includes('defers to the live copy'))).toBe(true);
      } else if (pause === 2) {
        // The copy deferred to comes back for its last receive, is refused again and gives up: it tells.
        await bench.run(worker, onReceive(other, MAX_RECEIVE_COUNT));
      }
    },
  });

  // The request ended, given up (one dead-lettered record, for the copy that told it)...
  expect((await readAudit(bench.table, requestId)).filter((r) => r.result === 'dead-lettered')).toHaveLength(
    1,
  );
  expect(bench.api.sandbox.state.triggers.get('trg_5')?.currentPhaseID).toBe(phase);
  // ...so the gate says so at its next look: refused (3), not "still held at the timeout" (4).
  expect(code, io.err()).toBe(3);
  expect(pauses, 'the gate waited out its timeout').toBeLessThan(5);
});
