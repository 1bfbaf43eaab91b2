/**
 * An Approve click's copy that was itself held (automation paused before the worker took it):
 * it used to check only its own held item, so a cancel of the question ("it will not be done")
 * did not stop it after resume. It checks the question's held item too, or the question's end.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { outcomeNow } from '../../src/cli/wait.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { postToSlack } from '../../src/slack/post.js';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';
import { type Bench, basePolicy, startBench } from './fixture.js';

let bench: Bench;
let tick: ReleaseDeps;

beforeAll(async () => {
  bench = await startBench();
  tick = {
    table: bench.table,
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    logger: createLogger({ service: 'release', sink: () => {} }),
    signer: createRequesterSigner(async () => bench.requesterKeys),
  };
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

describe('an asked request whose approved copy is held by a pause', () => {
  it('is never executed after `/autopilot cancel` of the question told the canceller it will not be done', async () => {
    const worker = bench.worker();
    const value = await ask('trg_rd1', 'rd-asked-1');
    const copyId = await clickApprove(value);
    // Automation is paused before the worker takes the copy: the copy is held by the pause.
    await writePause(bench.table, {
      paused: true,
      by: 'slack:U0ADMIN',
      reason: 'incident',
      at: bench.clock.now,
    });
    await bench.run(worker, await bench.receive());
    expect((await listHeld(bench.table)).find((h) => h.requestId === copyId)?.why).toBe('paused');
    expect(bench.approvals('trg_rd1')).toBe(0);
    // The person cancels the question (the id the CI gate and the question's message show).
    const { app } = webhook();
    const res = await app.request(
      signedRequest(
        '/slack/commands',
        commandBody({ text: 'cancel rd-asked-1 wrong build', userId: 'U0ADMIN' }),
      ),
    );
    expect(JSON.stringify(await res.json())).toContain('*cancelled*: it will not be done');
    // The tick sends the cancelled question to the worker, which ends it.
    bench.clock.now = new Date('2026-11-23T10:01:00Z');
    await releaseHeld(tick, bench.clock.now);
    await bench.run(worker, await bench.receive());
    expect(await outcomeNow(bench.table, 'rd-asked-1')).toMatchObject({ result: 'cancelled' });
    // Resume: the tick releases the held copy.
    await writePause(bench.table, {
      paused: false,
      by: 'slack:U0ADMIN',
      at: new Date('2026-11-23T10:05:00Z'),
    });
    bench.clock.now = new Date('2026-11-23T10:06:00Z');
    await releaseHeld(tick, bench.clock.now);
    const event = await bench.receive();
    if (event.Records.length > 0) await bench.run(worker, event);
    expect(bench.approvals('trg_rd1')).toBe(0);
  });
});
