/**
 * Two people click Deny on the same question before the worker's next check ends it. The veto
 * item was written by an unconditional put: the second Deny replaced the first person's name and
 * time, its author was told (and the question's message replaced with) "denied by" them, and the
 * worker then ended the request crediting the second person in the channel and the audit trail,
 * though the first Deny is the one that vetoed it. Now the first Deny's veto stays: the second is
 * answered, to its author only, that the question was already denied by the first, and nothing is
 * written. The real webhook (signed requests), the release tick and the worker on the emulators.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { postToSlack } from '../../src/slack/post.js';
import { readFinal } from '../../src/state/audit.js';
import { readHeld } from '../../src/state/held.js';
import { readVeto } from '../../src/state/veto.js';
import { heldAccess } from '../../src/webhook/held.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { type Bench, basePolicy, channelPostsAbout, startBench } from '../worker/fixture.js';
import { askQuestion, releaseDeps } from '../worker/questions.js';
import { buildApp } from './harness.js';

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

it('a second Deny before the check ends the question leaves the first Deny credited, and is told who denied it', async () => {
  const id = 'sd-asked-1';
  const value = await askQuestion(bench, 'trg_sd1', id);
  const vetoKey = 'approve_phase#trg_sd1#ph_1'; // the asked request's effect

  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  const first = await deny(value, 'U0REL');
  expect(first.outcome).toBe('denied');
  bench.clock.now = new Date('2026-11-23T10:05:20Z');
  const second = await deny(value, 'U0ADMIN');

  // The first Deny's veto stays as written.
  expect(await readVeto(bench.table, vetoKey)).toEqual({ by: 'slack:U0REL', at: '2026-11-23T10:05:00.000Z' });
  // The second person is told, to them only, that U0REL denied it; the "denied by U0REL" message stays.
  expect(second.outcome).toBe('question_denied');
  const said = second.replies.join('');
  expect(said).toContain('already denied');
  expect(said).toContain('U0REL');
  expect(said).not.toContain('"replace_original":true');
  expect(said).not.toContain('denied* by <@U0ADMIN>');

  // The tick's next look ends the question by the veto: the channel and the audit credit U0REL.
  const from = bench.slack.posts.length;
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  await bench.run(bench.worker({ policy: policy() }), await bench.receive());
  expect(await readHeld(bench.table, id)).toBeUndefined();
  const final = await readFinal(bench.table, id);
  expect(final).toMatchObject({ result: 'denied', rule: 'veto' });
  expect(final?.reason).toContain('slack:U0REL denied');
  expect(final?.reason).not.toContain('U0ADMIN');
  const told = channelPostsAbout(bench, id, from);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('U0REL');
  expect(told[0]).not.toContain('U0ADMIN');
});
