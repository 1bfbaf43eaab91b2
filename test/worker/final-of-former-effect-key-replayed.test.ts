/**
 * Review of this session's effect-key changes (61f9add, b6cdaf0, 318864f): ids holding '#' (and
 * group names holding ',' or '#') now go by a digest key. A request that ended before the deploy
 * has its final's owner stored under the former key; redelivered by SQS or retried by its producer
 * after the deploy, it was dead-lettered as "request id belongs to another request" (and `autopilot
 * wait` shut the CI gate the same way) instead of being told its outcome again.
 */
import { expect, it } from 'vitest';
import { requestOwner } from '../../src/actions/request.js';
import { outcomeNow, WAIT_EXIT } from '../../src/cli/wait.js';
import { type FinalOutcome, readFinal, recordFinal } from '../../src/state/audit.js';
import { benchResetEachTest, copyTrigger } from './fixture.js';

const bench = benchResetEachTest();

// CI, not a Slack user: a person's chat grant would override any veto.
const ci = { source: 'ci', id: 'github-actions/deploy.yml' } as const;

it('a request that ended before the deploy, sent again after it, is told its outcome, not dead-lettered', async () => {
  const triggerId = 'trg#legacy';
  copyTrigger(bench, triggerId);
  const request = {
    version: 1 as const,
    action: 'approve_phase' as const,
    triggerId,
    phaseId: 'ph_1',
    requestedBy: ci,
    requestedAt: bench.clock.now.toISOString(),
    requestId: 'legacy-final-1',
  };
  // Its final as the previous version stored it: the owner's effect key in the old form.
  const owner = { ...requestOwner(request), effectKey: `approve_phase#${triggerId}#ph_1` };
  const final: FinalOutcome = {
    result: 'approved',
    reason: `phase ph_1 of trigger ${triggerId} approved`,
    rule: 'CI in office hours',
    requestId: 'legacy-final-1',
    at: bench.clock.now.toISOString(),
  };
  expect(await recordFinal(bench.table, final, bench.clock.now, owner)).toBe(true);

  const logsFrom = bench.logs.length;
  await bench.send(request);
  expect(await bench.run(bench.worker(), await bench.receive())).toEqual({ batchItemFailures: [] });

  const lines = bench.logs.slice(logsFrom);
  expect(lines.filter((l) => l.rule === 'request-id-taken')).toEqual([]);
  expect(bench.approvals(triggerId)).toBe(0);
  expect(await readFinal(bench.table, 'legacy-final-1')).toMatchObject({ result: 'approved' });
});

it('`autopilot wait` for such a request reads its end as done, not as another request', async () => {
  const request = {
    version: 1 as const,
    action: 'disable_groups' as const,
    experimentId: 'checkout_redesign',
    groupNames: ['test,holdout'],
    requestedBy: ci,
    requestedAt: bench.clock.now.toISOString(),
    requestId: 'legacy-final-2',
  };
  // The previous version joined the names with ',' (b6cdaf0 gave such names a digest key).
  const owner = { ...requestOwner(request), effectKey: 'disable_groups#checkout_redesign#test,holdout' };
  const final: FinalOutcome = {
    result: 'groups-disabled',
    reason: 'groups disabled',
    rule: 'CI in office hours',
    requestId: 'legacy-final-2',
    at: bench.clock.now.toISOString(),
  };
  expect(await recordFinal(bench.table, final, bench.clock.now, owner)).toBe(true);

  const mine = { messageId: 'm-after-deploy', owner: requestOwner(request) };
  expect(await outcomeNow(bench.table, 'legacy-final-2', mine)).toMatchObject({
    exitCode: WAIT_EXIT.done,
    result: 'groups-disabled',
  });
});
