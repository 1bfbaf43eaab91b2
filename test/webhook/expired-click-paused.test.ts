/**
 * A click on a question past its expiry is refused with "It is closed as expired within a
 * minute". While automation is paused that is not so: the release tick sends nothing back while
 * paused, the worker holds even an expired request then (the pause comes before the expiry), and
 * the tick's new ending of stuck waits skips paused runs too: the question stays held, open in
 * `held`, until `/autopilot resume`. The person must not be promised an ending that is not coming.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { postToSlack } from '../../src/slack/post.js';
import { readHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
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
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
});

describe('an Approve click on an expired question while automation is paused', () => {
  it('does not promise that the question is closed within a minute', async () => {
    // Asked at 10:00 on the 23rd: it expires 72 hours later (basePolicy), at 10:00 on the 26th.
    const value = await askQuestion(bench, 'trg_px1', 'px-asked-1');
    await writePause(bench.table, { paused: true, by: 'slack:U0OPS', at: new Date('2026-11-25T09:00:00Z') });

    const at = Date.parse('2026-11-26T10:00:30Z');
    const { app, requestLines } = buildApp({
      policy: parsePolicy(basePolicy(bench.slack.origin)),
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      table: bench.table,
      held: heldAccess(bench.table),
      now: () => at,
      signer: createRequesterSigner(async () => bench.requesterKeys),
      postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [bench.slack.origin] }),
    });
    const path = '/actions/T0001/paused-expired/click';
    const payload = blockActionsPayload({
      actionId: APPROVE_ACTION_ID,
      value,
      userId: 'U0ADMIN',
      responseUrl: bench.slack.url(path),
    });
    const res = await app.request(
      signedRequest('/slack/interactions', interactionBody(payload), { timestamp: Math.floor(at / 1000) }),
    );
    expect(res.status).toBe(200);
    expect(requestLines().at(-1)?.outcome).toBe('question_expired');

    // What the tick really does in the following minutes: nothing; the question stays held.
    for (const minute of [1, 2, 30]) {
      bench.clock.now = new Date(at + minute * 60_000);
      await releaseHeld(releaseDeps(bench), bench.clock.now);
    }
    expect(await readHeld(bench.table, 'px-asked-1')).toBeDefined();

    const reply = bench.slack.posts
      .filter((p) => p.path === path)
      .map((p) => JSON.stringify(p.body))
      .join('');
    expect(reply).toContain('expired');
    expect(reply).not.toContain('within a minute');
  });
});
