/**
 * An Approve click's copy that is given up on its last receive (its attempts never reached the
 * platform: the requester and the channel are told "gave up") leaves the question marked
 * answered. Every later click on the question is then told "U0ADMIN approved it, and the approved
 * request is on its way", which was not true: nothing is on its way, and nobody could answer the
 * question again until it expired. The question is open again, and the notice says so. The real
 * webhook and worker on the emulators.
 */
import { expect, it } from 'vitest';
import { ApiConnectionError } from '../../src/console/index.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readHeld } from '../../src/state/held.js';
import { approveThrows, benchResetEachTest, onReceive } from './fixture.js';
import { askQuestion, clickApprove } from './questions.js';

const bench = benchResetEachTest(); // each test at 10:00 on the 23rd, the queue empty

it('opens the question again when the approved copy is given up without reaching the platform', async () => {
  const value = await askQuestion(bench, 'trg_gu1', 'gu-asked-1');
  await clickApprove(bench, value);

  const refused = approveThrows(bench, () => new ApiConnectionError('connect ECONNREFUSED', false));
  const response = await bench.run(refused, onReceive(await bench.receive(), MAX_RECEIVE_COUNT));
  expect(response.batchItemFailures).toHaveLength(1);
  const gaveUp = bench.slack.posts.filter((p) => JSON.stringify(p.body).includes('after 5 attempts'));
  expect(gaveUp.length).toBeGreaterThan(0);
  expect(JSON.stringify(gaveUp[0]?.body)).toContain('The question it answered is open again.');

  // Nothing is on its way: the question must not still say it was approved and is coming.
  const held = await readHeld(bench.table, 'gu-asked-1');
  expect(held?.why).toBe('ask');
  expect(held?.answeredBy).toBeUndefined();
});
