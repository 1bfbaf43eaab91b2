/**
 * `/autopilot cancel` landing on a held request whose denial the worker has just recorded: the
 * worker writes its final first and removes the held item after, so for a moment the request is
 * both ended (denied, told "Denied") and still held, and the cancel's mark takes. The person who
 * cancelled must hear how the request actually ended, not "cancelled … the requester and the
 * channel are told": nobody is told of a cancel. The real worker and webhook on the emulators; the
 * cancel runs right after the worker's write of its final, never by sleeping.
 */
import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from '../worker/fixture.js';
import { askQuestion, chatCommand, releaseDeps } from '../worker/questions.js';

const bench = benchForFile();

/** The worker's state table, running `cancel` right after the final of `requestId` is written (the held item stays until then). */
function cancelAfterFinal(requestId: string, cancel: () => Promise<void>): StateTable {
  const real = bench.table.client;
  let ran: Promise<void> | undefined;
  const send = (command: unknown) => real.send(command as never);
  const client = {
    send: async (command: unknown) => {
      const item = command instanceof PutItemCommand ? command.input.Item : undefined;
      if (!ran && item?.sk?.S === 'final' && item?.pk?.S === `audit#${requestId}`) {
        const out = await send(command);
        ran = cancel();
        await ran;
        return out;
      }
      if (command instanceof DeleteItemCommand && command.input.Key?.sk?.S === requestId) await ran;
      return send(command);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

it('a cancel that lands after the denial was recorded says the request was denied, not cancelled', async () => {
  const id = 'cancel-after-denial-1';
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  await askQuestion(bench, 'trg_cad1', id);
  // 73 hours later, past maxDeferHours (72): the tick sends the question back and the worker denies it.
  bench.clock.now = new Date('2026-11-26T11:00:30Z');
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  const before = bench.slack.posts.length;
  let reply = '';
  const table = cancelAfterFinal(id, async () => {
    reply = await chatCommand(bench, `cancel ${id} release called off`);
  });
  await bench.run(bench.worker({ table }), await bench.receive());

  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied', rule: 'maxDeferHours' });
  const told = bench.slack.posts
    .slice(before)
    .map((p) => JSON.stringify(p.body))
    .filter((body) => body.includes(id));
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Denied');
  expect((await readAudit(bench.table, id)).map((r) => r.result)).not.toContain('cancelled');
  // The person who typed the cancel hears the truth.
  expect(reply).not.toContain('is *cancelled*');
  expect(reply).not.toContain('are told within a minute');
  expect(reply).toContain('*denied*');
  expect(reply).toContain('maxDeferHours');
});
