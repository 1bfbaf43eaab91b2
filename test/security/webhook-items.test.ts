/**
 * The webhook's table access is limited by IAM to a few partition keys (`dynamodb:LeadingKeys`,
 * asserted on the template in least-privilege.test.ts). This drives every webhook path that
 * touches the table against dynalite and checks that each item it reads or writes is one of
 * them, so a new webhook feature that needs more fails here rather than with AccessDenied
 * after a deploy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TABLE_GRANTS } from '../../infra/table-grants.js';
import type { ActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { encodeButtonValue } from '../../src/slack/button-value.js';
import { holdRequest } from '../../src/state/held.js';
import {
  type StateTable,
  WEBHOOK_HELD_PARTITION_KEYS,
  WEBHOOK_PARTITION_KEYS,
} from '../../src/state/table.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';
import { recordingClient, refused, type TableRequest } from './table-requests.js';

let emu: Emulators;
const touched: string[] = [];
let table: StateTable;

const requests: TableRequest[] = [];

beforeAll(async () => {
  emu = await startEmulators();
  const client = recordingClient(emu.dynamo, requests, async (request) => {
    touched.push(...request.pks);
  });
  table = { client, tableName: emu.tableName };
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

const allowed = [...WEBHOOK_PARTITION_KEYS, ...WEBHOOK_HELD_PARTITION_KEYS].map(
  (pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`),
);

describe("the webhook's table items", () => {
  it('are only those its IAM policy names, on every path that touches the table', async () => {
    // On a clock of its own, never the machine's: the question expires maxDeferHours after it was asked.
    const at = Date.parse('2026-11-22T02:05:00.000Z');
    const timestamp = Math.floor(at / 1000);
    const { app } = buildApp({
      sqs: emu.sqs,
      queueUrl: emu.queueUrl,
      table,
      held: heldAccess(table),
      now: () => at,
    });
    // The worker asked about `asked` (held, waiting for an answer); written past the recording client.
    const unrecorded = { client: emu.dynamo, tableName: emu.tableName };
    const since = '2026-11-22T02:00:01.000Z';
    const question = { ...asked, requestId: 'sweeper-abc123' };
    const target = 'trigger trg_2 phase ph_1';
    const wait = { why: 'ask' as const, rule: 'ask', reason: 'a rule asks', since, request: question };
    await holdRequest(
      unrecorded,
      { requestId: 'sweeper-abc123', action: asked.action, target, requester: 'schedule:x', ...wait },
      new Date(since),
    );
    const command = async (text: string, retry = false) => {
      const body = commandBody({ text, triggerId: `items.${text}` });
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
    await command('pause checking items');
    await command('resume');
    await command('approve trg_1 ph_1');
    await command('approve trg_1 ph_1', true);
    await command('archive old_banner', true);
    await click(DENY_ACTION_ID);
    await click(APPROVE_ACTION_ID);
    await command('held');
    await command('cancel sweeper-abc123 not needed');

    const families = new Set(touched.map((pk) => pk.split('#')[0]));
    // Every kind of item the webhook owns was exercised, or this test would prove little.
    expect([...families].sort()).toEqual(['control', 'held', 'queued', 'veto']);
    expect(touched.filter((pk) => !allowed.some((re) => re.test(pk)))).toEqual([]);
    // And each request as IAM weighs it against the webhook's statements (held marks: only their attributes).
    expect(refused(requests, WEBHOOK_TABLE_GRANTS)).toEqual([]);
  });
});
