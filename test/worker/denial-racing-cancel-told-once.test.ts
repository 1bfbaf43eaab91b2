/**
 * `autopilot cancel` racing the worker's denial of the same held request. A question nobody
 * answered is sent back by the tick after `approvals.maxDeferHours`; the worker reads it (not
 * cancelled yet) and denies it by the expiry, while the operator cancels it. Both ends are
 * written with the same first-wins final: exactly one of them is the request's end, and only
 * that one may reach the channel and the trail. The loser says nothing to people; the operator
 * who cancelled is told the truth when the denial came first.
 *
 * The interleaving is made by the state table the worker writes through: the cancel runs right
 * before the worker starts to record its end, while it records it, or right after its write of
 * its final, never by sleeping.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { releaseHeld } from '../../src/worker/release.js';
import { captureIo } from '../helpers/cli-io.js';
import { basePolicy, benchForFile } from './fixture.js';
import { askQuestion, releaseDeps } from './questions.js';

const bench = benchForFile();
let cwd = '';

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-denial-race-'));
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(basePolicy(bench.slack.origin)));
});

interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** The operator's `autopilot cancel <id>`, telling the bench's channel, at the bench's clock. */
async function cliCancel(requestId: string): Promise<CliRun> {
  const t = captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
      SLACK_WEBHOOK_URL: bench.slack.url('/services/channel'),
      USER: 'alice',
    },
    cwd,
    now: () => bench.clock.now,
  });
  const code = await runCli(['cancel', requestId, '--reason', 'release called off'], t.io);
  return { code, out: t.out(), err: t.err() };
}

/**
 * The state table as the worker sees it, with the cancel run `before` the worker starts to record
 * its end (its gate on the held item: src/state/held-gates.ts), `while` it records it (after that
 * gate, right before its write of `requestId`'s final) or `after` that write. The held item is
 * not deleted until the cancel has run.
 */
function cancelAround(
  requestId: string,
  when: 'before' | 'while' | 'after',
  ran: { cancel?: CliRun },
): StateTable {
  const real = bench.table.client;
  let cancelled: () => void = () => {};
  const cancelDone = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  const send = (command: unknown) => real.send(command as never);
  const client = {
    send: async (command: unknown) => {
      const gate =
        command instanceof UpdateItemCommand &&
        command.input.Key?.sk?.S === requestId &&
        command.input.UpdateExpression?.includes('endingUntil');
      if (gate && when === 'before' && !ran.cancel) {
        ran.cancel = await cliCancel(requestId);
        cancelled();
      }
      if (command instanceof PutItemCommand) {
        const item = command.input.Item;
        const final = item?.sk?.S === 'final' && item?.pk?.S === `audit#${requestId}` && !ran.cancel;
        if (final && when === 'while') {
          ran.cancel = await cliCancel(requestId);
          cancelled();
        }
        if (final && when === 'after') {
          const out = await send(command);
          ran.cancel = await cliCancel(requestId);
          cancelled();
          return out;
        }
      }
      if (command instanceof DeleteItemCommand && command.input.Key?.sk?.S === requestId) await cancelDone;
      return send(command);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

/** Asks about `requestId`, lets the question expire unanswered and has the tick send it back. */
async function expiredQuestion(triggerId: string, requestId: string): Promise<number> {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  await askQuestion(bench, triggerId, requestId);
  // 73 hours later: past the policy's maxDeferHours (72); the tick sends it back at its look.
  bench.clock.now = new Date('2026-11-26T11:00:30Z');
  const before = bench.slack.posts.length;
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  return before;
}

/** The channel's posts about `requestId` since `before`. */
function channelPosts(requestId: string, before: number): string[] {
  return bench.slack.posts
    .slice(before)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body))
    .filter((body) => body.includes(requestId));
}

const endsIn = async (requestId: string) =>
  (await readAudit(bench.table, requestId))
    .map((r) => r.result)
    .filter((result) => result === 'denied' || result === 'cancelled');

describe('a denial racing autopilot cancel', () => {
  it('the cancel ends it first: the channel hears "cancelled" only, and the trail has one end', async () => {
    const id = 'race-deny-cancel-1';
    const before = await expiredQuestion('trg_drc1', id);
    const ran: { cancel?: CliRun } = {};
    await bench.run(bench.worker({ table: cancelAround(id, 'before', ran) }), await bench.receive());

    expect(ran.cancel?.code, ran.cancel?.err).toBe(0);
    expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled' });
    const told = channelPosts(id, before);
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Cancelled while held');
    expect(await endsIn(id)).toEqual(['cancelled']);
  });

  it('the denial is being recorded: the cancel is refused, and the channel hears "denied" only', async () => {
    const id = 'race-deny-cancel-3';
    const before = await expiredQuestion('trg_drc3', id);
    const ran: { cancel?: CliRun } = {};
    await bench.run(bench.worker({ table: cancelAround(id, 'while', ran) }), await bench.receive());

    expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied', rule: 'maxDeferHours' });
    const told = channelPosts(id, before);
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Denied');
    expect(await endsIn(id)).toEqual(['denied']);
    expect(ran.cancel?.out).not.toContain('Cancelled');
    expect(ran.cancel?.code).not.toBe(0);
    expect(ran.cancel?.err).toContain('was not cancelled');
  });

  it('the denial ends it first: the channel hears "denied" only, and the operator is not told it was cancelled', async () => {
    const id = 'race-deny-cancel-2';
    const before = await expiredQuestion('trg_drc2', id);
    const ran: { cancel?: CliRun } = {};
    await bench.run(bench.worker({ table: cancelAround(id, 'after', ran) }), await bench.receive());

    expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied', rule: 'maxDeferHours' });
    const told = channelPosts(id, before);
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Denied');
    expect(await endsIn(id)).toEqual(['denied']);
    // The operator hears what became of it: not "Cancelled".
    expect(ran.cancel?.out).not.toContain('Cancelled');
    expect(ran.cancel?.code).not.toBe(0);
    expect(ran.cancel?.err).toContain('denied');
  });
});
