import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { encodeButtonValue } from '../../src/slack/button-value.js';
import { postToSlack } from '../../src/slack/post.js';
import { endHold, holdRequest } from '../../src/state/held.js';
import { markCancelled } from '../../src/state/held-gates.js';
import type { StateTable } from '../../src/state/table.js';
import { readVeto } from '../../src/state/veto.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';
import { drainQueue } from './queue-helpers.js';

/** Stands in for hooks.slack.com: records what is posted to response URLs. */
let slack: Server;
let slackOrigin: string;
const posted: Array<{ path: string; body: Record<string, unknown> }> = [];
let emu: Emulators;
let table: StateTable;

beforeAll(async () => {
  slack = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => {
      data += chunk;
    });
    req.on('end', () => {
      posted.push({ path: req.url ?? '', body: JSON.parse(data) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));
  slackOrigin = `http://127.0.0.1:${(slack.address() as AddressInfo).port}`;
  emu = await startEmulators();
  table = { client: emu.dynamo, tableName: emu.tableName };
});
afterAll(async () => {
  await emu?.stop();
  await new Promise((resolve) => slack?.close(resolve));
});
beforeEach(async () => {
  posted.length = 0;
  await drainQueue(emu.sqs, emu.queueUrl);
  // A fresh question each time: an earlier test's Approve click answered the last one.
  await endHold(table, 'sweeper-abc123');
  await askedAbout(asked as ActionRequest & { requestId: string });
});

const asked: ActionRequest = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_2',
  phaseId: 'ph_1',
  requestedBy: { source: 'schedule', id: 'sweeper' },
  requestedAt: '2026-11-22T02:00:00.000Z',
  requestId: 'sweeper-abc123',
  reason: 'canary checks passed',
};

/** What the worker does before it posts a question: it holds the request, waiting for an answer. */
async function askedAbout(request: ActionRequest & { requestId: string }) {
  await holdRequest(
    table,
    {
      requestId: request.requestId,
      action: request.action,
      target: 'trigger trg_2 phase ph_1',
      requester: `${request.requestedBy.source}:${request.requestedBy.id}`,
      why: 'ask',
      rule: 'ask',
      reason: 'a rule asks',
      since: '2026-11-22T02:00:01.000Z',
      request,
    },
    new Date('2026-11-22T02:00:01.000Z'),
  );
}

/** When the clicks come: the webhook's clock, never the machine's (the question expires 72 hours after it was asked). */
const CLICKED_AT = Date.parse('2026-11-22T02:05:00.000Z');

function harness() {
  return buildApp({
    now: () => CLICKED_AT,
    sqs: emu.sqs,
    queueUrl: emu.queueUrl,
    table,
    held: heldAccess(table),
    postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [slackOrigin] }),
    replyOrigins: [slackOrigin],
  });
}

async function click(
  actionId: string,
  options: { userId?: string; teamId?: string; value?: string; retry?: boolean } = {},
) {
  const { app, requestLines } = harness();
  const payload = blockActionsPayload({
    actionId,
    value: options.value ?? encodeButtonValue(asked),
    responseUrl: `${slackOrigin}/actions/T0001/5678/efgh`,
    ...(options.userId ? { userId: options.userId } : {}),
    ...(options.teamId ? { teamId: options.teamId } : {}),
  });
  const res = await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), {
      timestamp: Math.floor(CLICKED_AT / 1000),
      ...(options.retry ? { extraHeaders: { 'x-slack-retry-num': '1' } } : {}),
    }),
  );
  return { res, log: requestLines().at(-1)! };
}

describe('"ask a human" buttons', () => {
  it('re-queues the asked request as the clicking person’s, and replaces the message', async () => {
    const { res, log } = await click(APPROVE_ACTION_ID, { userId: 'U0RELEASE' });
    expect(res.status).toBe(200);
    const [message, ...more] = await drainQueue(emu.sqs, emu.queueUrl, 2);
    expect(more).toEqual([]);
    expect(message!.body).toEqual({
      ...asked,
      requestedBy: { source: 'slack', id: 'U0RELEASE' },
      // The clicker's request, made at the click (maxDeferHours counts from it), not when asked.
      requestedAt: new Date(CLICKED_AT).toISOString(),
      requestId: 'sweeper-abc123:approved-by:U0RELEASE',
      // The question it answers, by id (the worker ends it with this copy).
      answers: 'sweeper-abc123',
      // Issued with the click (not with the asked request): the worker posts there for 30 minutes.
      reply: {
        slackResponseUrl: `${slackOrigin}/actions/T0001/5678/efgh`,
        issuedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
    expect(posted).toHaveLength(1);
    expect(posted[0]!.body).toMatchObject({ replace_original: true, text: 'Approved by U0RELEASE' });
    expect(JSON.stringify(posted[0]!.body)).toContain('sweeper-abc123:approved-by:U0RELEASE');
    expect(log).toMatchObject({
      route: 'POST /slack/interactions',
      outcome: 'queued',
      userId: 'U0RELEASE',
      requestId: 'sweeper-abc123:approved-by:U0RELEASE',
    });
  });

  it('records a veto on the effect key for Deny and replaces the message', async () => {
    const { res } = await click(DENY_ACTION_ID, { userId: 'U0RELEASE' });
    expect(res.status).toBe(200);
    expect(await readVeto(table, 'approve_phase#trg_2#ph_1')).toMatchObject({
      by: 'slack:U0RELEASE',
      at: expect.any(String),
    });
    expect(posted[0]!.body).toMatchObject({ replace_original: true, text: 'Denied by U0RELEASE' });
    expect(JSON.stringify(posted[0]!.body)).toContain('denied* by <@U0RELEASE>');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });

  it('refuses a click without the approve_phase grant, only to the clicker, naming the grant', async () => {
    const { res, log } = await click(APPROVE_ACTION_ID, { userId: 'U0OPS' });
    expect(res.status).toBe(200);
    expect(posted[0]!.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(JSON.stringify(posted[0]!.body)).toContain('`approve_phase` grant');
    expect(log.outcome).toBe('grant_missing');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });

  it('refuses a click from a workspace that is not listed', async () => {
    const { log } = await click(DENY_ACTION_ID, { teamId: 'T0OTHER' });
    expect(log.outcome).toBe('team_refused');
    expect(await readVeto(table, 'approve_phase#trg_9#ph_9')).toBeUndefined();
  });

  it('does nothing with a button value that is not an action request', async () => {
    const { log } = await click(APPROVE_ACTION_ID, {
      value: Buffer.from('{"action":"drop_tables"}').toString('base64url'),
    });
    expect(log.outcome).toBe('bad_button_value');
    expect(JSON.stringify(posted[0]!.body)).toContain('does not carry a valid action request');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });

  it('does not queue again when Slack retries a click that was queued', async () => {
    await askedAbout({ ...asked, requestId: 'retried-click-1' });
    const value = encodeButtonValue({ ...asked, requestId: 'retried-click-1' });
    expect((await click(APPROVE_ACTION_ID, { value })).log.outcome).toBe('queued');
    const { res, log } = await click(APPROVE_ACTION_ID, { value, retry: true });
    expect(res.status).toBe(200);
    expect(log.outcome).toBe('retry_ignored');
    expect(await drainQueue(emu.sqs, emu.queueUrl, 1)).toHaveLength(1);
  });

  it('queues a retried click whose first delivery never reached the queue', async () => {
    await askedAbout({ ...asked, requestId: 'retried-click-2' });
    const value = encodeButtonValue({ ...asked, requestId: 'retried-click-2' });
    const { log } = await click(APPROVE_ACTION_ID, { value, retry: true });
    expect(log.outcome).toBe('retry_queued');
    const [message, ...more] = await drainQueue(emu.sqs, emu.queueUrl, 1);
    expect(more).toEqual([]);
    expect(message!.body.requestId).toBe('retried-click-2:approved-by:U0ADMIN');
  });

  it('takes a click only for a question still open, and acts on the copy the worker holds', async () => {
    // A message posted as the app (anyone with the notifications webhook URL can) whose button
    // carries a request the worker never asked about: refused, nothing queued, nothing vetoed.
    const forged: ActionRequest = {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_9',
      phaseId: 'ph_9',
      requestedBy: { source: 'ci', id: 'deploy' },
      requestedAt: '2026-11-22T02:00:00.000Z',
      requestId: 'never-asked',
    };
    for (const actionId of [APPROVE_ACTION_ID, DENY_ACTION_ID]) {
      const { log } = await click(actionId, { value: encodeButtonValue(forged) });
      expect(log.outcome).toBe('question_closed');
    }
    // The id of a real question, with another effect in the button: refused too.
    const { log: swapped } = await click(APPROVE_ACTION_ID, {
      value: encodeButtonValue({ ...asked, triggerId: 'trg_9' }),
    });
    expect(swapped.outcome).toBe('question_closed');
    expect(JSON.stringify(posted.at(-1)!.body)).toContain('no longer open');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
    expect(await readVeto(table, 'approve_phase#trg_9#ph_9')).toBeUndefined();

    // A button that differs from the question only in its words: the held copy is queued.
    const { log } = await click(APPROVE_ACTION_ID, {
      value: encodeButtonValue({ ...asked, reason: 'a reason the button made up' }),
    });
    expect(log.outcome).toBe('queued');
    const [message] = await drainQueue(emu.sqs, emu.queueUrl, 1);
    expect(message!.body.reason).toBe('canary checks passed');

    // Cancelled, or ended: the question is closed.
    await markCancelled(table, 'sweeper-abc123', { by: 'slack:U0ADMIN', at: '2026-11-22T02:05:00.000Z' });
    expect((await click(APPROVE_ACTION_ID)).log.outcome).toBe('question_closed');
    await endHold(table, 'sweeper-abc123');
    expect((await click(DENY_ACTION_ID)).log.outcome).toBe('question_closed');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });

  it('answers 400 for a verified interaction without a usable payload', async () => {
    const { app } = harness();
    const timestamp = Math.floor(CLICKED_AT / 1000);
    const res = await app.request(signedRequest('/slack/interactions', 'payload=%7Bnot-json', { timestamp }));
    expect(res.status).toBe(400);
    const other = await app.request(
      signedRequest('/slack/interactions', interactionBody({ type: 'view_submission' }), { timestamp }),
    );
    expect(other.status).toBe(200);
  });
});
