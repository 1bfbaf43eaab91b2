/**
 * `autopilot enqueue --wait` gates on its own request: under an id that belongs to another
 * request (ended or held), it exits 3 (refused), never 0 on the other request's approval.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readRequestAudit } from '../../src/state/audit.js';
import { captureIo } from '../helpers/cli-io.js';
import { type Bench, startBench } from '../worker/fixture.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});

it('`enqueue --wait` does not pass the gate of a request refused as request-id-taken', async () => {
  const worker = bench.worker();
  // ci:github-actions/deploy.yml's trg_4 approval, under release-7.
  await bench.send({ triggerId: 'trg_4', phaseId: 'ph_1', requestId: 'rv-release-7' });
  await bench.run(worker, await bench.receive());

  // Another pipeline gates its deploy on trg_5 under the same id.
  const clock = { now: bench.clock.now.getTime() + 60_000 };
  let ran = false;
  const io = captureIo({
    env: {
      AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
    },
    now: () => new Date(clock.now),
    // Each poll interval, the worker takes what is queued (the pinned clock moves the poll on).
    sleep: async (ms) => {
      clock.now += ms;
      await bench.run(worker, await bench.receive());
      ran = true;
    },
  });
  const args = ['enqueue', 'approve', 'trg_5', 'ph_1', '--requested-by', 'ci:other-pipeline'];
  const code = await runCli(
    [
      ...args,
      '--request-id',
      'rv-release-7',
      '--queue-url',
      bench.queue.queueUrl,
      '--table',
      bench.table.tableName,
      '--wait',
      '--timeout',
      '30s',
    ],
    io.io,
  );
  if (!ran) await bench.run(worker, await bench.receive());

  // Its message was refused and trg_5 was not approved...
  const refused = (await readRequestAudit(bench.table, 'rv-release-7')).records.filter(
    (r) => r.requester === 'unproven ci:other-pipeline',
  );
  expect(refused.map((r) => r.rule)).toEqual(['request-id-taken']);
  expect(bench.approvals('trg_5')).toBe(0);
  // ...so its gate must not say "approved" (exit 0): 3 is "refused or dead-lettered".
  expect(code, io.err()).toBe(3);
});
