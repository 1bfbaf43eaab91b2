/**
 * Every webhook path that touches the state table, driven once through the real app against
 * dynalite: the table tests (webhook-items, webhook-grants-used) record what each path sends.
 */
import { expect } from 'vitest';
import { type ActionRequest, effectKey } from '../../src/actions/request.js';
import type { Emulators } from '../../src/local/emulators.js';
import { encodeButtonValue } from '../../src/slack/button-value.js';
import { readRequestAudit } from '../../src/state/audit.js';
import { holdRequest } from '../../src/state/held.js';
import { startEndingHeld } from '../../src/state/held-gates.js';
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

const asked: ActionRequest = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_2',
  phaseId: 'ph_1',
  requestedBy: { source: 'schedule', id: 'stale-config-sweep' },
  requestedAt: '2026-11-22T02:00:00.000Z',
  requestId: 'sweeper-abc123',
};

/**
 * Pause and resume, an approve and Slack's retries, a Deny and an Approve click on a held question,
 * `held` and a cancel; with `auditReads`, `status` and `why` too (the audit trail, read only).
 */
export async function driveWebhookPaths(
  emu: Emulators,
  table: StateTable,
  options: { label: string; auditReads?: boolean },
): Promise<void> {
  // On a clock of its own, never the machine's: the question expires maxDeferHours after it was asked.
  const at = Date.parse('2026-11-22T02:05:00.000Z');
  const timestamp = Math.floor(at / 1000);
  const { app } = buildApp({
    sqs: emu.sqs,
    queueUrl: emu.queueUrl,
    table,
    held: heldAccess(table),
    ...(options.auditReads
      ? { audit: { read: (requestId: string) => readRequestAudit(table, requestId) } }
      : {}),
    now: () => at,
  });
  // The worker asked about `asked` (held, waiting for an answer); written past the recording client.
  const unrecorded = { client: emu.dynamo, tableName: emu.tableName };
  const since = '2026-11-22T02:00:01.000Z';
  const target = 'trigger trg_2 phase ph_1';
  const wait = { why: 'ask' as const, rule: 'ask', reason: 'a rule asks', since, request: asked };
  await holdRequest(
    unrecorded,
    { requestId: 'sweeper-abc123', action: asked.action, target, requester: 'schedule:x', ...wait },
    new Date(since),
  );
  const command = async (text: string, retry = false) => {
    const body = commandBody({ text, triggerId: `${options.label}.${text}` });
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
  await command(`pause checking ${options.label}`);
  await command('resume');
  await command('approve trg_1 ph_1');
  await command('approve trg_1 ph_1', true);
  await command('archive old_banner', true);
  await click(DENY_ACTION_ID);
  // Clicked again: its veto is on record (refused, read back).
  await click(DENY_ACTION_ID);
  await click(APPROVE_ACTION_ID);
  if (options.auditReads) await command('status');
  await command('held');
  if (options.auditReads) await command('why sweeper-abc123');
  await command('cancel sweeper-abc123 not needed');
  // A cancel refused while the worker records the request's end (its gate: held-gates.ts), which
  // then reads how it ended.
  await holdRequest(
    unrecorded,
    { requestId: 'sweeper-ending1', action: asked.action, target, requester: 'schedule:x', ...wait },
    new Date(since),
  );
  await startEndingHeld(unrecorded, 'sweeper-ending1', at + 60_000, { effect: effectKey(asked), nowMs: at });
  await command('cancel sweeper-ending1 not needed');
}
