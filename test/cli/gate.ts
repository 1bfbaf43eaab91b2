/**
 * `autopilot enqueue approve … --wait` run in process as a CI job's gate over a test's bench: the
 * emulators' endpoints as its env, its clock pinned and moved on by each poll interval, and a
 * test's step (usually the worker taking what is queued) run at each of the gate's pauses.
 */

import { runCli } from '../../src/cli/run.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { captureIo } from '../helpers/cli-io.js';
import type { Bench } from '../worker/fixture.js';

/** The CLI's env on the bench: SQS and DynamoDB on the emulators. */
export const emulatorEnv = (bench: Bench) => ({
  AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint,
  AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
});

/** A gate's pause step: `worker` takes what is queued. */
export const workerTakes = (bench: Bench, worker: WorkerHandler) => async () => {
  await bench.run(worker, await bench.receive());
};

export interface GateRequest {
  triggerId: string;
  phaseId: string;
  /** `source:id`, as `--requested-by` takes it. */
  requestedBy: string;
  requestId: string;
  /** The CLI's clock at the start, in ms (the bench's clock by default). */
  start?: number;
  /** Run at each poll interval, after the CLI's clock moved on by it; `pause` counts them from 1. */
  onPause: (pause: number) => Promise<void>;
}

/** The gate's exit code, its captured io and how many pauses it made. */
export async function runGate(bench: Bench, request: GateRequest) {
  const clock = { now: request.start ?? bench.clock.now.getTime() };
  let pauses = 0;
  const io = captureIo({
    env: emulatorEnv(bench),
    now: () => new Date(clock.now),
    sleep: async (ms) => {
      clock.now += ms;
      pauses += 1;
      await request.onPause(pauses);
    },
  });
  const args = [
    'enqueue',
    'approve',
    request.triggerId,
    request.phaseId,
    '--requested-by',
    request.requestedBy,
  ];
  const where = ['--queue-url', bench.queue.queueUrl, '--table', bench.table.tableName];
  const code = await runCli(
    [...args, '--request-id', request.requestId, ...where, '--wait', '--timeout', '30s'],
    io.io,
  );
  return { code, io, pauses };
}
