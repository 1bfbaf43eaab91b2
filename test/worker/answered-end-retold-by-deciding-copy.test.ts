/**
 * A person's answer, told by a copy of the asked request that had already decided. The worker
 * asks about a schedule's request; a new policy approves schedules, and its hourly look (a copy of
 * the asked request) decides "approve" and is slow to go on. Meanwhile U0ADMIN clicks Approve; a
 * freeze has started, so the approved copy is denied, and the pass ending the question writes its
 * end ("answered by slack:U0ADMIN …") and dies before telling it. A copy of the asked request
 * then tells it and dies after removing the held record, before its audit record. The slow copy
 * goes on: the question is no longer held, it finds the answered end untold and tells it. Its
 * audit record said nothing of the answer and carried the copy's own decision inputs, so `policy
 * replay` decided the person's answer again as a policy decision (showing a change the policy never
 * made). The record says who answered, and replay counts it as an answer.
 *
 * The real webhook and worker on the emulators; the deaths are tables whose calls stop answering
 * right after a chosen write lands.
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { replayReport } from '../cli/replay-run.js';
import { askedCopy, newPolicy, pausedAtEffectClaim } from './deciding-copy.js';
import { type Bench, basePolicy, benchResetEachTest, dyingAfterPut } from './fixture.js';
import { askQuestion, clickApprove } from './questions.js';

const bench = benchResetEachTest();

/** The bench's table as a process that dies right after deleting `requestId`'s held record. */
function dyingAfterHeldDelete(bench: Bench, requestId: string) {
  const real = bench.table.client;
  let dead = false;
  let markDead: () => void = () => {};
  const died = new Promise<void>((resolve) => {
    markDead = resolve;
  });
  const client = {
    send: async (command: unknown) => {
      if (dead) return new Promise<never>(() => {});
      const result = await real.send(command as never);
      if (
        command instanceof DeleteItemCommand &&
        command.input.Key?.pk?.S === 'held#all' &&
        command.input.Key?.sk?.S === requestId
      ) {
        dead = true;
        markDead();
        return new Promise<never>(() => {});
      }
      return result;
    },
  } as unknown as StateTable['client'];
  return { table: { client, tableName: bench.table.tableName }, died };
}

it('a copy that had decided tells the answered end as an answer, and policy replay counts it as one', async () => {
  const id = 'rt-asked';
  const value = await askQuestion(bench, 'trg_rt1', id);
  const policy = newPolicy(bench);

  // 10:20, the hourly look under the new policy: approve (no freeze yet); it is slow to go on.
  bench.clock.now = new Date('2026-11-23T10:20:00Z');
  await bench.send(askedCopy(id, 'trg_rt1'));
  const slow = pausedAtEffectClaim(bench);
  const looked = bench.run(bench.worker({ policy, table: slow.table }), await bench.receive());
  await slow.paused;

  // 10:35: U0ADMIN approves; the approved copy is denied by the freeze, and the pass ending the
  // question dies right after the question's final.
  bench.clock.now = new Date('2026-11-23T10:35:00Z');
  await clickApprove(bench, value);
  const answering = dyingAfterPut(bench, (item) => item.pk?.S === `audit#${id}` && item.sk?.S === 'final');
  void bench.run(bench.worker({ policy, table: answering.table }), await bench.receive());
  await answering.died;
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied' });

  // 10:55, past that pass's claim: another copy of the asked request tells the end and dies after
  // removing the held record, before its audit record.
  bench.clock.now = new Date('2026-11-23T10:55:00Z');
  await bench.send(askedCopy(id, 'trg_rt1'));
  const telling = dyingAfterHeldDelete(bench, id);
  void bench.run(bench.worker({ policy, table: telling.table }), await bench.receive());
  await telling.died;

  // 11:10: the slow copy goes on, finds the question no longer held and its end untold, and tells it.
  bench.clock.now = new Date('2026-11-23T11:10:00Z');
  slow.go();
  await looked;

  const records = await readAudit(bench.table, id);
  expect(records.map((r) => r.result)).toEqual(['asked', 'denied']);
  const answer = records[1];
  expect(answer?.reason).toContain('answered by slack:U0ADMIN');
  expect(answer?.answeredBy).toBe('slack:U0ADMIN');
  // Not a decision this copy made: its inputs are not the answer's.
  expect(answer?.inputs).toBeUndefined();

  // Replay decides the question again, never the person's answer.
  const report = await replayReport(bench.table, basePolicy(bench.slack.origin));
  expect(report).toMatchObject({ answers: 1, notReplayable: 0, changes: {} });
});
