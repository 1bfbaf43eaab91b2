/**
 * `autopilot cancel --local` against the running local stack: the requester of a held request
 * is told it was cancelled at its reply URL, which on the local stack is the Slack receiver's
 * (the stack lists that origin in SLACK_REPLY_ORIGINS for the webhook and the worker). The CLI
 * refused it as "not a Slack URL", so the requester never heard of the cancel and the operator
 * got a warning for a post that should have been made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, heldNightly, nightlyAsks, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;

beforeAll(async () => {
  t = await bootTestStack('review-cli-cancel', nightlyAsks);
});
afterAll(async () => {
  await t?.stop();
});

describe('autopilot cancel --local', () => {
  it("tells the requester at its reply URL on the stack's Slack receiver", async () => {
    const requestId = 'review-cli-cancel-1';
    const replyUrl = t.stack.receiver.responseUrl('review-cli-cancel');
    await heldNightly(t, requestId, { slackResponseUrl: replyUrl });

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
