/**
 * A Slack retry of an Approve click (`X-Slack-Retry-Num`, the same body) whose first delivery was
 * taken: the question marked answered, its approved copy queued, its queued mark written. The
 * worker runs the copy within seconds and ends the question; the retry then read the question
 * closed and told the person who approved "This question is no longer open (it was answered,
 * cancelled or has expired) … nothing was done", though their Approve is what ended it. A retry
 * whose first delivery queued nothing is still taken as a click. The real webhook (signed
 * requests) and the real worker, on the emulators and the Console API sandbox.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, questionWebhook } from '../worker/questions.js';

const bench = benchResetEachTest();

const RETRY = { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' };
const PATH = '/actions/T0001/1/click';

/** U0ADMIN's Approve click on `value`, first delivery or Slack's retry of it, on the bench's clock. */
function approveClick(value: string) {
  const body = interactionBody(
    blockActionsPayload({
      actionId: APPROVE_ACTION_ID,
      value,
      userId: 'U0ADMIN',
      responseUrl: bench.slack.url(PATH),
    }),
  );
  return async (retry: boolean) => {
    const { app, requestLines } = questionWebhook(bench, { now: () => bench.clock.now.getTime() });
    const res = await app.request(
      signedRequest('/slack/interactions', body, {
        timestamp: Math.floor(bench.clock.now.getTime() / 1000),
        ...(retry ? { extraHeaders: RETRY } : {}),
      }),
    );
    expect(res.status).toBe(200);
    return requestLines().at(-1) as { outcome: string; requestId?: string };
  };
}

/** What the webhook replied to the click, each as parsed JSON. */
const replies = () =>
  bench.slack.posts
    .filter((p) => p.path === PATH)
    .map((p) => p.body as { text: string; replace_original?: boolean; response_type?: string });

it('a retried Approve whose copy already ended the question is told it was taken, and nothing is queued again', async () => {
  const value = await askQuestion(bench, 'trg_ar1', 'ar-asked-1');
  const click = approveClick(value);

  const first = await click(false);
  expect(first.outcome).toBe('queued');
  expect(replies()).toHaveLength(1);
  expect(replies()[0]!.text).toBe('Approved by U0ADMIN');

  // The worker runs the approved copy within seconds: the phase is approved, the question ended.
  await bench.run(bench.worker(), await bench.receive());
  expect(bench.approvals('trg_ar1')).toBe(1);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('ar-asked-1');

  // Then Slack retries the click (its first answer was late).
  bench.clock.now = new Date(bench.clock.now.getTime() + 20_000);
  const before = replies().length;
  const retried = await click(true);

  expect(retried.outcome).toBe('retry_ignored');
  expect(replies()).toHaveLength(before + 1);
  const told = replies().at(-1)!;
  expect(told.text).not.toContain('no longer open');
  expect(told.text).not.toContain('nothing was done');
  expect(told.text).toContain('Slack sent your Approve');
  expect(told.text).toContain('already taken');
  expect(told.text).toContain('ar-asked-1:approved-by:U0ADMIN');
  expect(told.text).toContain('why ar-asked-1:approved-by:U0ADMIN');
  // Only the person who clicked reads it; the "approved" message stays.
  expect(told).toMatchObject({ response_type: 'ephemeral', replace_original: false });
  // Nothing queued a second time; the phase approved once.
  expect((await bench.receive()).Records).toEqual([]);
  expect(bench.approvals('trg_ar1')).toBe(1);
  expect((await readFinal(bench.table, 'ar-asked-1:approved-by:U0ADMIN'))?.result).toBe('approved');
});

it('a retried Approve whose first delivery queued nothing is taken now', async () => {
  const value = await askQuestion(bench, 'trg_ar2', 'ar-asked-2');
  const click = approveClick(value);

  // Only the retry arrives at the webhook (the first delivery never got here).
  const retried = await click(true);

  expect(retried).toMatchObject({ outcome: 'retry_queued', requestId: 'ar-asked-2:approved-by:U0ADMIN' });
  expect(replies().at(-1)?.text).toBe('Approved by U0ADMIN');
  const queued = (await bench.receive()).Records.map((r) => JSON.parse(r.body).requestId);
  expect(queued).toEqual(['ar-asked-2:approved-by:U0ADMIN']);
});
