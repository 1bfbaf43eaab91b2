/**
 * A Deny clicked on a question the worker already ended as denied (by an earlier person's Deny:
 * the release tick's next look, then the worker's denial by the veto). The question's held item is
 * gone, and the click was told "This question is no longer open (it was answered, cancelled or has
 * expired)": true, but it left out the one thing the person needed, that it was denied, and by
 * whom. It is now told so from our own records (the request's final and its audit record of the
 * veto), the person named as a Slack mention. The real webhook (signed requests), the release tick
 * and the worker on the emulators.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { postToSlack } from '../../src/slack/post.js';
import { readFinal, readRequestAudit } from '../../src/state/audit.js';
import { heldAccess } from '../../src/webhook/held.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { type Bench, basePolicy, startBench } from '../worker/fixture.js';
import { askQuestion, releaseDeps } from '../worker/questions.js';
import { buildApp } from './harness.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});

function policy() {
  const input = basePolicy(bench.slack.origin);
  input.chat = { teams: ['T0001'], grants: { U0ADMIN: ['approve_phase'], U0REL: ['approve_phase'] } };
  return input;
}

let clicks = 0;
/** `userId` clicks Deny on the question `value` at the bench's time, through the real webhook. */
async function deny(value: string, userId: string) {
  const { app, requestLines } = buildApp({
    policy: parsePolicy(policy()),
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    table: bench.table,
    held: heldAccess(bench.table),
    audit: { read: (requestId) => readRequestAudit(bench.table, requestId) },
    now: () => bench.clock.now.getTime(),
    signer: createRequesterSigner(async () => bench.requesterKeys),
    postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [bench.slack.origin] }),
  });
  const path = `/actions/T0001/${++clicks}/deny`;
  const payload = blockActionsPayload({
    actionId: DENY_ACTION_ID,
    value,
    userId,
    responseUrl: bench.slack.url(path),
  });
  const res = await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), {
      timestamp: Math.floor(bench.clock.now.getTime() / 1000),
    }),
  );
  expect(res.status).toBe(200);
  const replies = bench.slack.posts.filter((p) => p.path === path).map((p) => JSON.stringify(p.body));
  return { outcome: requestLines().at(-1)?.outcome, replies };
}

it('a Deny on a question the worker ended as denied is told it was already denied, and by whom', async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  const id = 'dd-asked-1';
  const value = await askQuestion(bench, 'trg_dd1', id);
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  expect((await deny(value, 'U0REL')).outcome).toBe('denied');
  // The tick's next look ends the question by the veto.
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  await bench.run(bench.worker({ policy: policy() }), await bench.receive());
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied', rule: 'veto' });

  bench.clock.now = new Date('2026-11-23T10:07:00Z');
  const late = await deny(value, 'U0ADMIN');
  expect(late.outcome).toBe('question_denied');
  expect(late.replies).toHaveLength(1);
  const said = late.replies[0] ?? '';
  // The person as a mention in the message, by their id in its plain fallback; only to the clicker.
  expect(said).toContain('already denied by <@U0REL>');
  expect(said).toContain('"text":"This question was already denied by U0REL; nothing was done."');
  expect(said).toContain('"replace_original":false');
  expect(said).not.toContain('no longer open');
});
