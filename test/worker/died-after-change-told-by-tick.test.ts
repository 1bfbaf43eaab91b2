/**
 * A copy that dies on its last receive right after its call made the change (the effect marked
 * completed, the final not yet written: a timeout, a crash) is the case the release tick's look
 * exists for: nothing of it runs after, so nobody hears the end. The tick took the completed
 * effect for an end already told and deleted the mark: the requester's last word stayed "queued",
 * the channel heard nothing, no final was written, and a CI gate waited out its timeout (exit 4).
 * The tick now records and tells that end as a copy of the request replays it (replay-end.ts):
 * its own change as at first, the channel too; another request's change as "done by" that one.
 * Also: a copy given up since it was sent (told then) is named on the give-up's record, as the
 * worker names such a copy (ended-copy.ts), so a CI gate waiting on its message ends with it.
 * Real worker on fauxqs and dynalite (its table stops answering, or fails, at the final's put), the
 * Console API sandbox, the Slack stand-in, and the deployed tick.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { outcomeNow, WAIT_EXIT } from '../../src/cli/wait.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { copiesBench, twoCopies } from './copies.js';
import {
  channelPostsAbout,
  copyTrigger,
  dyingAtCommand,
  dyingAtStateRead,
  onReceive,
  requesterPostsAbout,
  sendAndReceive,
  sentAt,
} from './fixture.js';
import { deployedTickAt } from './stuck.js';

const bench = copiesBench();

const tickAt = (iso: string) => deployedTickAt(bench, iso);

const requesterPosts = (id: string) => requesterPostsAbout(bench, id);
const channelPosts = (id: string) => channelPostsAbout(bench, id, 0);
/** The exit code a CI gate waiting on `event`'s message reads now (the request's own owner: its final's, if any). */
async function gateExit(id: string, event: SQSEvent): Promise<number | undefined> {
  const { messageId } = event.Records[0]!;
  const finalOwner = (await readFinal(bench.table, id))?.owner;
  const owner = finalOwner ?? { requester: 'ci:github-actions/deploy.yml', effectKey: 'unused: no final' };
  return (await outcomeNow(bench.table, id, { messageId, owner })).exitCode;
}

/** `id` for a fresh trigger `trg_<id>`'s current phase, with a reply URL: its one message, received. */
async function oneRequest(id: string, triggerId = `trg_${id}`): Promise<SQSEvent> {
  const event = await sendAndReceive(bench, id, triggerId);
  expect(event.Records).toHaveLength(1);
  return event;
}

const isFinalPut = (id: string) => (command: unknown) =>
  command instanceof PutItemCommand &&
  command.input.Item?.pk?.S === `audit#${id}` &&
  command.input.Item?.sk?.S === 'final';

/** The bench's table, whose put of `id`'s final fails (throttled, say) rather than hangs. */
function finalPutFailing(id: string): StateTable {
  const real = bench.table.client;
  const send = async (command: unknown) => {
    if (isFinalPut(id)(command)) throw new Error('ProvisionedThroughputExceededException: throttled');
    return real.send(command as never);
  };
  return { client: { send } as unknown as StateTable['client'], tableName: bench.table.tableName };
}

describe('a copy that dies on its last receive after its call made the change', () => {
  it('is told to its requester and the channel by the release tick, once, with its final', async () => {
    const id = 'ci-died-after-change';
    copyTrigger(bench, `trg_${id}`);
    const event = await oneRequest(id);
    const dying = dyingAtCommand(bench, isFinalPut(id));
    void bench.run(bench.worker({ table: dying.table }), onReceive(event, MAX_RECEIVE_COUNT));
    await dying.died;
    expect(bench.approvals(`trg_${id}`)).toBe(1);

    const first = await tickAt('2026-11-23T10:02:00Z');
    expect(first.endsTold).toEqual([id]);
    expect(first.givenUp).toEqual([]);
    const told = requesterPosts(id);
    expect(told).toHaveLength(1);
    expect(told[0]).not.toMatch(/gave up|could not/i);
    expect(channelPosts(id)).toHaveLength(1);
    expect((await readFinal(bench.table, id))?.result).toBe('approved');
    expect((await readAudit(bench.table, id)).map((r) => [r.result, r.messageId])).toEqual([
      ['approved', event.Records[0]!.messageId],
    ]);
    expect(await gateExit(id, event)).toBe(WAIT_EXIT.done);

    // The next tick tells nothing again.
    expect((await tickAt('2026-11-23T10:03:00Z')).endsTold).toEqual([]);
    expect(requesterPosts(id)).toHaveLength(1);
    expect(channelPosts(id)).toHaveLength(1);
  });

  it('whose final put failed (the worker took the completed change for an end and told nothing) is told by the tick', async () => {
    const id = 'ci-final-put-failed-last';
    copyTrigger(bench, `trg_${id}`);
    const event = await oneRequest(id);
    const run = await bench.run(
      bench.worker({ table: finalPutFailing(id) }),
      onReceive(event, MAX_RECEIVE_COUNT),
    );
    expect(run.batchItemFailures).toHaveLength(1);
    expect(bench.approvals(`trg_${id}`)).toBe(1);
    expect(requesterPosts(id)).toEqual([]);

    expect((await tickAt('2026-11-23T10:02:00Z')).endsTold).toEqual([id]);
    expect(requesterPosts(id)).toHaveLength(1);
    expect(channelPosts(id)).toHaveLength(1);
    expect((await readFinal(bench.table, id))?.result).toBe('approved');
  });

  it('is told "done" by the request that made the change when another request made it', async () => {
    const id = 'ci-died-other-made-it';
    const other = 'ci-made-it-first';
    copyTrigger(bench, 'trg_dm1');
    const event = await oneRequest(id, 'trg_dm1');
    // Its last receive dies before it reads the request's state; another request makes the change.
    const dying = dyingAtStateRead(bench, id);
    void bench.run(bench.worker({ table: dying.table }), onReceive(event, MAX_RECEIVE_COUNT));
    await dying.died;
    const made = await oneRequest(other, 'trg_dm1');
    expect((await bench.run(bench.worker(), made)).batchItemFailures).toEqual([]);
    expect(bench.approvals('trg_dm1')).toBe(1);

    expect((await tickAt('2026-11-23T10:02:00Z')).endsTold).toEqual([id]);
    const told = requesterPosts(id);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(other);
    expect(told[0]).not.toMatch(/gave up|could not/i);
    // As the worker replays another request's change: its requester only, with a final of its own.
    expect(channelPosts(id)).toEqual([]);
    expect(await readFinal(bench.table, id)).toMatchObject({ result: 'approved', requestId: id });
    expect(await gateExit(id, event)).toBe(WAIT_EXIT.done);
    expect(bench.approvals('trg_dm1')).toBe(1);
  });
});

describe('a copy that dies on its last receive after its request was given up', () => {
  it('is named on the give-up record, so a gate waiting on its message ends with it', async () => {
    const id = 'ci-died-after-give-up';
    copyTrigger(bench, 'trg_dg1');
    const sent = new Date('2026-11-23T10:00:00Z');
    const [copyA, copyB] = (await twoCopies(bench, 'trg_dg1', id)).map((e) => sentAt(e, sent));
    // A is refused 429 on its last receive: given up, told (B was never seen: not registered).
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
    bench.clock.now = new Date('2026-11-23T10:00:30Z');
    expect(
      (await bench.run(bench.worker(), onReceive(copyA!, MAX_RECEIVE_COUNT))).batchItemFailures,
    ).toHaveLength(1);
    bench.api.sandbox.setFaults({ rateLimitRate: 0 });
    const toldBefore = requesterPosts(id);
    // B, sent before the give-up, dies on its last receive before it reads anything.
    bench.clock.now = new Date('2026-11-23T10:01:00Z');
    const dying = dyingAtStateRead(bench, id);
    void bench.run(bench.worker({ table: dying.table }), onReceive(copyB!, MAX_RECEIVE_COUNT));
    await dying.died;

    const tick = await tickAt('2026-11-23T10:03:00Z');
    expect([tick.givenUp, tick.endsTold]).toEqual([[], []]);
    expect(requesterPosts(id)).toEqual(toldBefore);
    const records = await readAudit(bench.table, id);
    expect(records.map((r) => r.result)).toEqual(['dead-lettered']);
    const messageId = copyB!.Records[0]!.messageId;
    expect(records[0]?.endsMessages).toContain(messageId);
    expect(await gateExit(id, copyB!)).toBe(WAIT_EXIT.refused);
  });
});
