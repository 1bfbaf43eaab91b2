/**
 * A valid disable_groups request with long group names (50 of 200 characters are allowed): its
 * effect key, a DynamoDB partition key of the effect claim and the veto, used to pass the 2 KB
 * limit, and every read of the request's state failed until SQS dead-lettered it without a reason.
 */
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

it('ends (decides or dead-letters with a reason) a valid disable_groups request with long group names', async () => {
  const groupNames = Array.from({ length: 12 }, (_, i) => `g${i}_${'x'.repeat(190)}`);
  await bench.send({
    action: 'disable_groups',
    experimentId: 'exp_1',
    groupNames,
    requestId: 'review-long-groups',
    // Not allowed to disable groups by the policy: it should simply be denied.
    requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
  });
  const worker = bench.worker();
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const out = await bench.run(worker, event);
  const errors = bench.logs.filter((l) => l.level === 'error').map((l) => JSON.stringify(l.error));
  // Today: ValidationException "Size of hashkey has exceeded the maximum size limit of2048 bytes".
  expect(out, errors.join('\n')).toEqual({ batchItemFailures: [] });
  expect((await readAudit(bench.table, 'review-long-groups')).map((r) => r.result)).toEqual(['denied']);
});
