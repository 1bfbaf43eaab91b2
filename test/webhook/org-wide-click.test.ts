/**
 * A click from an Enterprise Grid org-wide install comes with `team: null` (Slack then names the
 * org in `enterprise` and the person's home workspace in `user.team_id`). The payload check
 * answered 400 and the click was dropped: the person saw a failed button and no reason, and the
 * question stayed unanswered. `chat.teams` lists the workspaces whose clicks count, and the click
 * names none; the manifest installs per workspace (`org_deploy_enabled: false`), so the click is
 * still refused, now with its reason shown to the person who clicked, and nothing is queued.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { encodeButtonValue } from '../../src/slack/button-value.js';
import { postToSlack } from '../../src/slack/post.js';
import { holdRequest } from '../../src/state/held.js';
import type { StateTable } from '../../src/state/table.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';
import { drainQueue } from './queue-helpers.js';

let slack: Server;
let slackOrigin: string;
const posted: Array<{ path: string; body: Record<string, unknown> }> = [];
let emu: Emulators;
let table: StateTable;

const asked: ActionRequest & { requestId: string } = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_2',
  phaseId: 'ph_1',
  requestedBy: { source: 'schedule', id: 'sweeper' },
  requestedAt: '2026-11-22T02:00:00.000Z',
  requestId: 'sweeper-org-wide',
};
/** The webhook's clock, never the machine's. */
const CLICKED_AT = Date.parse('2026-11-22T02:05:00.000Z');

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
  await drainQueue(emu.sqs, emu.queueUrl);
  await holdRequest(
    table,
    {
      requestId: asked.requestId,
      action: asked.action,
      target: 'trigger trg_2 phase ph_1',
      requester: 'schedule:sweeper',
      why: 'ask',
      rule: 'ask',
      reason: 'a rule asks',
      since: '2026-11-22T02:00:01.000Z',
      request: asked,
    },
    new Date('2026-11-22T02:00:01.000Z'),
  );
});
afterAll(async () => {
  await emu?.stop();
  await new Promise((resolve) => slack?.close(resolve));
});

describe('a click from an org-wide install (team: null)', () => {
  for (const team of [null, undefined]) {
    it(`is refused with a reason shown to the person who clicked, not a bare 400 (team ${team})`, async () => {
      posted.length = 0;
      const { app, requestLines } = buildApp({
        now: () => CLICKED_AT,
        sqs: emu.sqs,
        queueUrl: emu.queueUrl,
        table,
        held: heldAccess(table),
        postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [slackOrigin] }),
        replyOrigins: [slackOrigin],
      });
      const payload: Record<string, unknown> = {
        ...blockActionsPayload({
          actionId: APPROVE_ACTION_ID,
          value: encodeButtonValue(asked),
          responseUrl: `${slackOrigin}/actions/E0ORG/5678/efgh`,
        }),
        team,
        enterprise: { id: 'E0ORG', name: 'Acme' },
        is_enterprise_install: true,
      };
      if (team === undefined) delete payload.team;
      const res = await app.request(
        signedRequest('/slack/interactions', interactionBody(payload), {
          timestamp: Math.floor(CLICKED_AT / 1000),
        }),
      );
      expect(res.status).toBe(200);
      const log = requestLines().at(-1) as Record<string, unknown>;
      expect(log).toMatchObject({ outcome: 'team_refused', userId: 'U0ADMIN' });
      expect(posted).toHaveLength(1);
      const reply = posted[0]?.body as { text: string; replace_original: boolean; response_type: string };
      expect(reply).toMatchObject({ response_type: 'ephemeral', replace_original: false });
      expect(reply.text).toContain('did not say which workspace');
      expect(reply.text).toContain('chat.teams');
      // Nothing was approved: the queue is empty.
      expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
    });
  }
});
