/**
 * An Approve click's copy that is given up on its last receive (its attempts never reached the
 * platform: the requester and the channel are told "gave up") leaves the question marked
 * answered. Every later click on the question is then told "U0ADMIN approved it, and the approved
 * request is on its way", which was not true: nothing is on its way, and nobody could answer the
 * question again until it expired. The question is open again, and the notice says so. The real
 * webhook and worker on the emulators.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiConnectionError } from '../../src/console/index.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readHeld } from '../../src/state/held.js';
import { type Bench, startBench } from './fixture.js';
import { askQuestion, clickApprove } from './questions.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});

const onLastReceive = (event: SQSEvent): SQSEvent => ({
  Records: event.Records.map((r) => ({
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(MAX_RECEIVE_COUNT) },
  })),
});

it('opens the question again when the approved copy is given up without reaching the platform', async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  const value = await askQuestion(bench, 'trg_gu1', 'gu-asked-1');
  await clickApprove(bench, value);

  const refused = bench.worker({
    client: {
      releasePipelineTriggers: {
        approve: async () => {
          throw Object.assign(new ApiConnectionError('connect ECONNREFUSED', false), { attempts: 1 });
        },
      },
      experiments: { disableGroups: async () => ({}) },
      dynamicConfigs: { archive: async () => ({}) },
    },
  });
  const response = await bench.run(refused, onLastReceive(await bench.receive()));
  expect(response.batchItemFailures).toHaveLength(1);
  const gaveUp = bench.slack.posts.filter((p) => JSON.stringify(p.body).includes('after 5 attempts'));
  expect(gaveUp.length).toBeGreaterThan(0);
  expect(JSON.stringify(gaveUp[0]?.body)).toContain('The question it answered is open again.');

  // Nothing is on its way: the question must not still say it was approved and is coming.
  const held = await readHeld(bench.table, 'gu-asked-1');
  expect(held?.why).toBe('ask');
  expect(held?.answeredBy).toBeUndefined();
});
