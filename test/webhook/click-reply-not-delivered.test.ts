/**
 * A click is answered on its `response_url` only: when Slack refuses that post (an expired or
 * used-up URL answers 404), the person who clicked is told nothing, and the request's one log
 * line used to say `queued` at info level as if all was well. It now carries the failed reply
 * (why, Slack's status; never the URL's path, a bearer capability) at warn level. The real
 * webhook on the emulators, the worker asking the question, Slack's stand-in refusing the reply.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { blockActionsPayload, interactionBody, signedRequest } from '../helpers/slack-requests.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, questionWebhook } from '../worker/questions.js';

const bench = benchResetEachTest();
beforeEach(() => {
  bench.slack.setStatus(200);
});

/** `userId` clicks Approve on the question's message; the request's log line. */
async function clickApprove(value: string, userId: string, path: string) {
  const { app, requestLines } = questionWebhook(bench, { now: () => bench.clock.now.getTime() });
  const payload = blockActionsPayload({
    actionId: APPROVE_ACTION_ID,
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
  const lines = requestLines();
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('a click whose reply Slack refuses', () => {
  it('is queued, and the log line says at warn level that the person was told nothing', async () => {
    const value = await askQuestion(bench, 'trg_rf1', 'rf-asked-1');
    bench.slack.setStatus(404);
    const path = '/actions/T0001/8181/capability-token-rf1';
    const line = await clickApprove(value, 'U0ADMIN', path);
    // Slack did get the post (and refused it): the reply was attempted, not skipped.
    expect(bench.slack.posts.some((p) => p.path === path)).toBe(true);
    expect(line).toMatchObject({
      level: 'warn',
      outcome: 'queued',
      requestId: 'rf-asked-1:approved-by:U0ADMIN',
      warning: 'reply to Slack not delivered',
      replyError: { reason: 'http', status: 404, error: expect.stringContaining('Slack answered 404') },
    });
    expect(JSON.stringify(line)).not.toContain('capability-token-rf1');
    // The approved copy is on its way all the same.
    expect((await bench.receive()).Records.map((r) => JSON.parse(r.body).requestId)).toEqual([
      'rf-asked-1:approved-by:U0ADMIN',
    ]);
  });

  it('keeps a refusal’s own outcome, and adds that its reply was not delivered either', async () => {
    const value = await askQuestion(bench, 'trg_rf2', 'rf-asked-2');
    bench.slack.setStatus(500);
    const line = await clickApprove(value, 'U0NOGRANT', '/actions/T0001/8282/capability-token-rf2');
    expect(line).toMatchObject({
      level: 'warn',
      outcome: 'grant_missing',
      warning: 'reply to Slack not delivered',
      replyError: { reason: 'http', status: 500 },
    });
  });

  it('logs a delivered reply as before: info, no warning', async () => {
    const value = await askQuestion(bench, 'trg_rf3', 'rf-asked-3');
    const line = await clickApprove(value, 'U0ADMIN', '/actions/T0001/8383/capability-token-rf3');
    expect(line).toMatchObject({ level: 'info', outcome: 'queued' });
    expect(line).not.toHaveProperty('warning');
    expect(line).not.toHaveProperty('replyError');
  });
});
