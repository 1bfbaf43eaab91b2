/**
 * The internet-facing webhook's table grants (infra/table-grants.ts) gave it GetItem and PutItem
 * on its own partitions together, so it could also read every veto (`veto#*`), which it never
 * does: a person's Deny is written (PutItem) and only the worker reads it, with the request's
 * state. This drives every webhook path that touches the table, `why` included (the audit trail,
 * read only), and checks that each action granted on each partition is one the webhook uses,
 * as the worker's and the sweeper's item tests do for theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TABLE_GRANTS } from '../../infra/table-grants.js';
import type { ActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { encodeButtonValue } from '../../src/slack/button-value.js';
import { readRequestAudit } from '../../src/state/audit.js';
import { holdRequest } from '../../src/state/held.js';
import type { StateTable } from '../../src/state/table.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';
import { recordingClient, refused, type TableRequest, unused } from './table-requests.js';

let emu: Emulators;
let table: StateTable;
const requests: TableRequest[] = [];

beforeAll(async () => {
  emu = await startEmulators();
  table = { client: recordingClient(emu.dynamo, requests), tableName: emu.tableName };
});
afterAll(async () => {
  await emu?.stop();
});

const asked: ActionRequest = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_2',
  phaseId: 'ph_1',
  requestedBy: { source: 'schedule', id: 'stale-config-sweep' },
  requestedAt: '2026-11-22T02:00:00.000Z',
  requestId: 'sweeper-abc123',
};

describe("the webhook's table grants", () => {
  it('hold no action on a partition that no webhook path uses', async () => {
    // On a clock of its own, never the machine's.
    const at = Date.parse('2026-11-22T02:05:00.000Z');
    const timestamp = Math.floor(at / 1000);
    const { app } = buildApp({
      sqs: emu.sqs,
      queueUrl: emu.queueUrl,
      table,
      held: heldAccess(table),
      audit: { read: (requestId) => readRequestAudit(table, requestId) },
      now: () => at,
    });
    // The worker asked about `asked` (held, waiting for an answer); written past the recording client.
    const unrecorded = { client: emu.dynamo, tableName: emu.tableName };
    const since = '2026-11-22T02:00:01.000Z';
    await holdRequest(
      unrecorded,
      {
        requestId: 'sweeper-abc123',
        action: asked.action,
        target: 'trigger trg_2 phase ph_1',
        requester: 'schedule:x',
        why: 'ask',
        rule: 'ask',
        reason: 'a rule asks',
        since,
        request: asked,
      },
      new Date(since),
    );
    const command = async (text: string, retry = false) => {
      const body = commandBody({ text, triggerId: `grants.${text}` });
      const res = await app.request(
        signedRequest('/slack/commands', body, {
          timestamp,
          ...(retry ? { extraHeaders: { 'x-slack-retry-num': '1' } } : {}),
        }),
      );
      expect(res.status).toBe(200);
    };
    const click = async (actionId: string) => {
      const payload = blockActionsPayload({
        actionId,
        value: encodeButtonValue(asked),
        responseUrl: 'https://hooks.slack.com/actions/T0001/1/x',
      });
      const res = await app.request(
        signedRequest('/slack/interactions', interactionBody(payload), { timestamp }),
      );
      expect(res.status).toBe(200);
    };
    await command('pause checking grants');
    await command('resume');
    await command('approve trg_1 ph_1');
    await command('approve trg_1 ph_1', true);
    await command('archive old_banner', true);
    await click(DENY_ACTION_ID);
    await click(APPROVE_ACTION_ID);
    await command('status');
    await command('held');
    await command('why sweeper-abc123');
    await command('cancel sweeper-abc123 not needed');

    expect(refused(requests, WEBHOOK_TABLE_GRANTS)).toEqual([]);
    expect(unused(requests, WEBHOOK_TABLE_GRANTS)).toEqual([]);
  });
});
