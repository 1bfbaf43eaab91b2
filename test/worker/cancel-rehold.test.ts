/**
 * `autopilot cancel` racing the worker's copy of a held question at its hourly look. The copy
 * reads the held item (not cancelled yet), decides "ask" again and writes the wait anew; the
 * operator's cancel lands between that read and that write: it marks the item, writes the final
 * `cancelled`, deletes the held item and tells everyone "cancelled". The worker's write must not
 * bring the held item back: a question held again (no cancel mark) is open to an Approve click,
 * whose copy then executes the request the operator was told is cancelled.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readFinal } from '../../src/state/audit.js';
import { readHeld } from '../../src/state/held.js';
import type { StateTable } from '../../src/state/table.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { captureIo } from '../helpers/cli-io.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { basePolicy, benchForFile } from './fixture.js';
import { askQuestion, questionWebhook, releaseDeps } from './questions.js';

const bench = benchForFile();
let cwd = '';

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-rehold-'));
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(basePolicy(bench.slack.origin)));
});

/** The operator's `autopilot cancel <id>` on the bench's table, at the bench's clock. */
async function cliCancel(requestId: string): Promise<{ code: number; out: string; err: string }> {
  const t = captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
      USER: 'alice',
    },
    cwd,
    now: () => bench.clock.now,
  });
  const code = await runCli(['cancel', requestId, '--reason', 'release called off'], t.io);
  return { code, out: t.out(), err: t.err() };
}

/** The state table, with the cancel run just before the worker writes `requestId`'s wait anew. */
function cancelBeforeRehold(requestId: string, ran: { cancel?: { code: number; err: string } }): StateTable {
  const real = bench.table.client;
  const client = {
    send: async (command: unknown) => {
      const input = (command as UpdateItemCommand).input;
      const rehold =
        command instanceof UpdateItemCommand &&
        input.Key?.sk?.S === requestId &&
        input.UpdateExpression?.includes('REMOVE releasedAt') === true;
      if (rehold && !ran.cancel) ran.cancel = await cliCancel(requestId);
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

describe('autopilot cancel while the worker holds the question again', () => {
  it('leaves it cancelled: not held again, and an Approve click on it changes nothing', async () => {
    bench.clock.now = new Date('2026-11-23T10:00:00Z');
    const value = await askQuestion(bench, 'trg_race1', 'race-asked-1');

    // Its hourly look: the tick sends it back, and the worker asks again.
    bench.clock.now = new Date('2026-11-23T11:00:30Z');
    await releaseHeld(releaseDeps(bench), bench.clock.now);
    const ran: { cancel?: { code: number; err: string } } = {};
    const worker = bench.worker({ table: cancelBeforeRehold('race-asked-1', ran) });
    await bench.run(worker, await bench.receive());
    // Let a retried copy (if the worker asked for one) run on the plain table.
    const retry = await bench.receive();
    if (retry.Records.length > 0) await bench.run(bench.worker(), retry);

    // The operator was told it is cancelled, and its ending says so.
    expect(ran.cancel?.code, ran.cancel?.err).toBe(0);
    expect(await readFinal(bench.table, 'race-asked-1')).toMatchObject({ result: 'cancelled' });
    // It must not be held (an open question) again.
    expect(await readHeld(bench.table, 'race-asked-1')).toBeUndefined();

    // A person clicks Approve on the question still shown in Slack: nothing may be approved.
    const { app } = questionWebhook(bench, { now: () => bench.clock.now.getTime() });
    const payload = blockActionsPayload({
      actionId: APPROVE_ACTION_ID,
      value,
      userId: 'U0ADMIN',
      responseUrl: bench.slack.url('/actions/T0001/1/click'),
    });
    await app.request(
      signedRequest('/slack/interactions', interactionBody(payload), {
        timestamp: Math.floor(bench.clock.now.getTime() / 1000),
      }),
    );
    const copies = await bench.receive();
    if (copies.Records.length > 0) await bench.run(bench.worker(), copies);
    expect(bench.approvals('trg_race1')).toBe(0);
  });
});
