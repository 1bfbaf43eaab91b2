/**
 * The release tick took its "now" from the scheduled event's time alone. A tick that starts late
 * (an async invocation held in Lambda's queue by throttling, up to the worker's max event age; a
 * tick that ran long before it reached its dead copies) then recorded a give-up as made at that
 * older time. A copy of the request SQS accepted between that time and the give-up really told (a
 * producer's retried SendMessage) was taken for a new attempt sent after the give-up: decided afresh,
 * it made the change and told "approved" to people told "gave up" a moment before. The tick's time is
 * now the later of the event's and the worker's clock. Real worker on fauxqs and dynalite, the Console
 * API sandbox, the Slack stand-in, and the deployed tick.
 */
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { lambdaContext } from '../helpers/lambda.js';
import { copiesBench, twoCopies } from './copies.js';
import { basePolicy, copyTrigger, dyingAtStateRead, onReceive, sentAt } from './fixture.js';
import { deployedTick } from './stuck.js';

const bench = copiesBench();

it('records a give-up told by a late tick at the time it was told, so a copy sent before ends with it', async () => {
  const id = 'ci-died-late-tick';
  copyTrigger(bench, 'trg_lt1');
  const [copyA, copyB] = await twoCopies(bench, 'trg_lt1', id);
  // A dies on its last receive at 10:00, before it reads anything.
  const dying = dyingAtStateRead(bench, id);
  void bench.run(
    bench.worker({ table: dying.table }),
    onReceive(sentAt(copyA, new Date('2026-11-23T10:00:00Z')), MAX_RECEIVE_COUNT),
  );
  await dying.died;

  // The 10:02 tick runs at 10:04 by the worker's clock, and tells the give-up then.
  bench.clock.now = new Date('2026-11-23T10:04:00Z');
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)));
  const summary = (await tick(
    { time: '2026-11-23T10:02:00Z' },
    lambdaContext({ timeoutMs: 60_000 }),
  )) as ReleaseSummary;
  expect(summary.givenUp).toEqual([id]);
  const told = bench.slack.posts.filter((p) => p.path === `/actions/${id}`).length;
  expect(told).toBe(1);

  // B, the producer's retry accepted at 10:03 (before the give-up was told), is received at 10:05.
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  const late = sentAt(copyB, new Date('2026-11-23T10:03:00Z'));
  expect((await bench.run(bench.worker(), late)).batchItemFailures).toEqual([]);
  // A copy of the request given up: nothing called, nothing more told, its gate ends with the give-up.
  expect(bench.approvals('trg_lt1')).toBe(0);
  expect(bench.slack.posts.filter((p) => p.path === `/actions/${id}`)).toHaveLength(told);
  const records = await readAudit(bench.table, id);
  expect(records.map((r) => r.result)).toEqual(['dead-lettered']);
  expect(records[0]?.endsMessages).toContain(late.Records[0]!.messageId);
  expect(records[0]?.at).toBe('2026-11-23T10:04:00.000Z');
});
