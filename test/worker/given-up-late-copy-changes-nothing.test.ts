/**
 * A request on the queue twice (a producer retried SendMessage): copy A is refused 429 on its last
 * receive and, with no other copy registered live, tells "Gave up after 5 attempts" and writes the
 * `dead-lettered` record the CI gate exits on. Copy B had never been received (it sat behind a
 * backlog), so it was not registered. When it was received at last it was decided afresh: it made
 * the change and told "Done", a second, different end after people and the gate had heard "gave up".
 * A message SQS accepted before the give-up was recorded (its `SentTimestamp`) is a copy of the
 * request that ended: it changes and tells nothing, and its message id is named on the give-up's
 * record, so a gate waiting on it ends with the give-up. A message sent after the give-up (a CI job
 * retried under the same id) is still a new attempt, decided afresh.
 * Real worker on fauxqs and dynalite, the Console API sandbox, the Slack stand-in; SentTimestamp set
 * on the received records (the emulator stamps the machine's time, the bench's clock is pinned).
 */
import { expect, it } from 'vitest';
import { outcomeNow, WAIT_EXIT } from '../../src/cli/wait.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { copiesBench, twoCopies } from './copies.js';
import { onReceive, sentAt } from './fixture.js';

const bench = copiesBench();

const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;
const postsAbout = (requestId: string) =>
  bench.slack.posts.map((p) => JSON.stringify(p.body)).filter((body) => body.includes(requestId));
const owner = { requester: 'ci:github-actions/deploy.yml', effectKey: 'unused: no final' };

/** The request sent twice at 10:00; copy A refused 429 on its last receive at 10:00:30: given up, told. */
async function givenUpWithAnUnseenCopy(triggerId: string, requestId: string) {
  const sent = new Date('2026-11-23T10:00:00Z');
  const [copyA, copyB] = (await twoCopies(bench, triggerId, requestId)).map((e) => sentAt(e, sent));
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
  bench.clock.now = new Date('2026-11-23T10:00:30Z');
  expect(
    (await bench.run(bench.worker(), onReceive(copyA!, MAX_RECEIVE_COUNT))).batchItemFailures,
  ).toHaveLength(1);
  expect(postsAbout(requestId).filter((body) => /after 5 attempts/.test(body))).toHaveLength(2);
  bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  return { copyB: copyB! };
}

it('a copy sent before the give-up, first received after it, changes nothing and tells nothing new', async () => {
  const requestId = 'ci-sent-twice-one-unseen';
  const phase = current('trg_4');
  const { copyB } = await givenUpWithAnUnseenCopy('trg_4', requestId);
  const toldBefore = postsAbout(requestId);

  // B is received at last, twenty minutes on; the platform would take the call now.
  bench.clock.now = new Date('2026-11-23T10:20:00Z');
  expect((await bench.run(bench.worker(), onReceive(copyB, 1))).batchItemFailures).toEqual([]);

  // No second effect, no second end told, no second record: the give-up is the request's one end.
  expect(current('trg_4')).toBe(phase);
  expect(bench.approvals('trg_4')).toBe(1);
  expect(postsAbout(requestId)).toEqual(toldBefore);
  const records = await readAudit(bench.table, requestId);
  expect(records.map((r) => r.result)).toEqual(['dead-lettered']);
  expect(bench.logs.some((l) => l.message.includes('a copy of a request given up'))).toBe(true);
  // A CI gate waiting on B's message ends with the give-up (3), not at its timeout.
  const messageId = copyB.Records[0]!.messageId;
  expect(records[0]?.endsMessages).toContain(messageId);
  expect((await outcomeNow(bench.table, requestId, { messageId, owner })).exitCode).toBe(WAIT_EXIT.refused);
});

it('a message under the id sent after the give-up (a retried CI job) is a new attempt, decided afresh', async () => {
  const requestId = 'ci-given-up-then-retried';
  const phase = current('trg_5');
  await givenUpWithAnUnseenCopy('trg_5', requestId);
  await bench.purge();

  // The job is retried with the same id ten minutes after the give-up; the platform answers again.
  bench.clock.now = new Date('2026-11-23T10:10:00Z');
  await bench.send({ triggerId: 'trg_5', phaseId: phase, requestId });
  const retry = sentAt(await bench.receive(), bench.clock.now);
  expect(retry.Records).toHaveLength(1);
  expect((await bench.run(bench.worker(), retry)).batchItemFailures).toEqual([]);

  expect(current('trg_5')).not.toBe(phase);
  expect((await readAudit(bench.table, requestId)).map((r) => r.result)).toEqual([
    'dead-lettered',
    'approved',
  ]);
});
