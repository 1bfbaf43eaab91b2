/**
 * A question whose id is long (over ~108 characters, 128 allowed): the Approve click names its
 * copy `sha-<hash>:approved-by:<user>`, from which the question's id cannot be read back. The
 * copy used to be tied to the question by its id alone: the question never ended, and a cancel
 * of it did not stop the copy. The copy now carries the question's id (`answers`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { outcomeNow } from '../../src/cli/wait.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { postToSlack } from '../../src/slack/post.js';
import { listHeld } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';
import { type Bench, basePolicy, startBench } from './fixture.js';

let bench: Bench;

beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
});

async function ask(triggerId: string, requestId: string): Promise<string> {
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set(triggerId, {
    ...structuredClone(template!),
    id: triggerId,
    actions: [],
  });
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId,
    requestedBy: { source: 'schedule', id: 'nightly' },
  });
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).find((h) => h.requestId === requestId)?.why).toBe('ask');
  const question = bench.slack.posts.findLast((p) => JSON.stringify(p.body).includes(requestId));
  const blocks = (question?.body.blocks ?? []) as Array<{
    elements?: Array<{ action_id?: string; value?: string }>;
  }>;
  const value = blocks
    .flatMap((b) => b.elements ?? [])
    .find((e) => e.action_id === 'autopilot_approve')?.value;
  expect(value).toBeDefined();
  return value as string;
}

function webhook() {
  return buildApp({
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    table: bench.table,
    held: heldAccess(bench.table),
    signer: createRequesterSigner(async () => bench.requesterKeys),
    postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [bench.slack.origin] }),
  });
}

async function clickApprove(value: string) {
  const { app, requestLines } = webhook();
  const payload = blockActionsPayload({
    actionId: APPROVE_ACTION_ID,
    value,
    userId: 'U0ADMIN',
    responseUrl: bench.slack.url('/actions/T0001/1/click'),
  });
  const res = await app.request(signedRequest('/slack/interactions', interactionBody(payload)));
  expect(res.status).toBe(200);
  expect(requestLines().at(-1)?.outcome).toBe('queued');
  return requestLines().at(-1)?.requestId as string;
}

// 115 characters: valid (max 128), but with ":approved-by:U0ADMIN" past 128, so the copy's id is hashed.
const longId = (tag: string) => `rv-long-${tag}-`.padEnd(115, 'x');

describe('an asked request with a long id, answered with Approve', () => {
  it('ends with its answer (enqueue --wait on the asked id sees approved)', async () => {
    const asked = longId('a');
    const value = await ask('trg_rl1', asked);
    const copyId = await clickApprove(value);
    expect(copyId.startsWith('sha-')).toBe(true);
    await bench.run(bench.worker(), await bench.receive());
    expect(bench.approvals('trg_rl1')).toBe(1);
    const state = await outcomeNow(bench.table, asked);
    expect(state, JSON.stringify(state)).toMatchObject({ exitCode: 0, result: 'approved' });
  });

  it('is never executed after `/autopilot cancel` told the canceller it will not be done', async () => {
    const asked = longId('b');
    const value = await ask('trg_rl2', asked);
    await clickApprove(value);
    const { app } = webhook();
    const res = await app.request(
      signedRequest(
        '/slack/commands',
        commandBody({ text: `cancel ${asked} wrong build`, userId: 'U0ADMIN' }),
      ),
    );
    expect(JSON.stringify(await res.json())).toContain('*cancelled*: it will not be done');
    await bench.run(bench.worker(), await bench.receive());
    expect(bench.approvals('trg_rl2')).toBe(0);
  });
});
