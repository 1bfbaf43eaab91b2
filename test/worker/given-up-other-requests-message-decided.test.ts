/**
 * A message sent before a request's give-up was recorded, first received after it, is ended as a
 * copy of that request (src/worker/ended-copy.ts): nothing done, its id named on the give-up's
 * record. But the id alone does not make a copy: a message under the same id from another requester,
 * or for another change, is another request (its owner differs: the id-taken check reads the same).
 * Ended as a copy, it was never decided, and its CI gate exited on someone else's "gave up". It is
 * decided afresh, as it was before the give-up was marked.
 * Real worker on fauxqs and dynalite, the Console API sandbox, the Slack stand-in; SentTimestamp set
 * on the received records (the emulator stamps the machine's time, the bench's clock is pinned).
 */
import { expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { copiesBench } from './copies.js';
import { copyTrigger, onReceive, sentAt } from './fixture.js';

const bench = copiesBench();

const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;

it("another requester's message under a given-up request's id, sent before the give-up, is decided afresh", async () => {
  const requestId = 'ci-shared-id-given-up';
  copyTrigger(bench, 'trg_own1');
  copyTrigger(bench, 'trg_own2');
  const sent = new Date('2026-11-23T10:00:00Z');
  // Both sent at 10:00 under one id: the first by the deploy pipeline, the other by another pipeline.
  await bench.send({ triggerId: 'trg_own1', phaseId: current('trg_own1'), requestId });
  const mine = sentAt(await bench.receive(), sent);
  await bench.send({
    triggerId: 'trg_own2',
    phaseId: current('trg_own2'),
    requestId,
    requestedBy: { source: 'ci', id: 'other-pipeline' },
  });
  const theirs = sentAt(await bench.receive(), sent);

  // The first is refused 429 on its last receive at 10:00:30: given up, told.
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  bench.clock.now = new Date('2026-11-23T10:00:30Z');
  expect(
    (await bench.run(bench.worker(), onReceive(mine, MAX_RECEIVE_COUNT))).batchItemFailures,
  ).toHaveLength(1);
  bench.api.sandbox.setFaults({ rateLimitRate: 0 });

  // The other pipeline's message is received at 10:20: its own request, decided and carried out.
  const phase = current('trg_own2');
  bench.clock.now = new Date('2026-11-23T10:20:00Z');
  expect((await bench.run(bench.worker(), onReceive(theirs, 1))).batchItemFailures).toEqual([]);
  expect(current('trg_own2')).not.toBe(phase);
  const records = await readAudit(bench.table, requestId);
  expect(records.map((r) => r.result)).toEqual(['dead-lettered', 'approved']);
  expect(records[0]?.endsMessages ?? []).not.toContain(theirs.Records[0]!.messageId);
});
