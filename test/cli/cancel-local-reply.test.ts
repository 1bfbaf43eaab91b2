/**
 * `autopilot cancel --local` against the running local stack: the requester of a held request
 * is told it was cancelled at its reply URL, which on the local stack is the Slack receiver's
 * (the stack lists that origin in SLACK_REPLY_ORIGINS for the webhook and the worker). The CLI
 * refused it as "not a Slack URL", so the requester never heard of the cancel and the operator
 * got a warning for a post that should have been made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { createSqsClient, sendActionRequest } from '../../src/queue/actions-queue.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, canaryTriggers, type TestStack, untilHeld } from '../helpers/local-stack.js';

let t: TestStack;

beforeAll(async () => {
  t = await bootTestStack('review-cli-cancel', (policy) => {
    policy.approvals.rules = [
      { name: 'nightly asks a human', when: { requesters: ['ci:nightly'] }, decision: 'ask' },
      // cli:<user> may cancel what ci:cli:<user> could ask for.
      { name: 'operators ask', when: { requesters: ['ci:cli:*'] }, decision: 'ask' },
    ];
  });
});
afterAll(async () => {
  await t?.stop();
});

describe('autopilot cancel --local', () => {
  it("tells the requester at its reply URL on the stack's Slack receiver", async () => {
    const requestId = 'review-cli-cancel-1';
    const replyUrl = t.stack.receiver.responseUrl('review-cli-cancel');
    const sqs = createSqsClient({ endpoint: t.stack.endpoints.sqsEndpoint });
    try {
      await sendActionRequest(sqs, t.stack.endpoints.queueUrl, {
        version: 1,
        action: 'approve_phase',
        triggerId: canaryTriggers(t.stack)[0] as string,
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'nightly' },
        requestedAt: new Date().toISOString(),
        requestId,
        reply: { slackResponseUrl: replyUrl },
      });
    } finally {
      sqs.destroy();
    }
    await untilHeld(t, requestId);

    const run = captureIo({ env: t.cliEnv, cwd: t.dir, now: () => new Date() });
    const code = await runCli(
      ['cancel', requestId, '--reason', 'superseded', '--as', 'alice', '--local'],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    expect(run.err()).not.toContain('could not tell');
    const told = await t.stack.receiver.waitFor(
      (post) =>
        post.path === '/response/review-cli-cancel' && JSON.stringify(post.body).includes('superseded'),
      5_000,
    );
    expect(JSON.stringify(told.body)).toMatch(/[Cc]ancelled/);
  });
});
