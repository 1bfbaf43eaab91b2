/**
 * `autopilot cancel --local` tells the channel through the shell's SLACK_WEBHOOK_URL, the variable
 * README has operators export to cancel on the deployed stack ("with SLACK_WEBHOOK_URL, the channel
 * is told"). A release manager who cancels a request on their local stack in that same shell posted
 * "cancelled" for a local request to the team's real notifications channel, while the stack's own
 * channel (its Slack receiver, where its worker tells every end) heard nothing. `--local` acts on the
 * local stack alone: the channel told is the stack's, never the shell's.
 *
 * The local stack runs on the wall clock (its worker's), so the CLI's clock here is too, as in
 * test/cli/cancel-local-reply.test.ts; nothing depends on the date.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, heldNightly, nightlyAsks, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;
let realChannel: Server;
const realPosts: string[] = [];
let realChannelUrl = '';

beforeAll(async () => {
  t = await bootTestStack('review-cli-cancel-channel', nightlyAsks);
  realChannel = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      realPosts.push(body);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => realChannel.listen(0, '127.0.0.1', resolve));
  realChannelUrl = `http://127.0.0.1:${(realChannel.address() as AddressInfo).port}/services/T0/B0/team-channel`;
}, 60_000);
afterAll(async () => {
  await new Promise<void>((resolve) => realChannel?.close(() => resolve()));
  await t?.stop();
});

describe('autopilot cancel --local with SLACK_WEBHOOK_URL exported', () => {
  it("tells the stack's channel, not the one the shell names", async () => {
    const requestId = 'review-cli-cancel-channel-1';
    await heldNightly(t, requestId);

    const run = captureIo({
      env: { ...t.cliEnv, SLACK_WEBHOOK_URL: realChannelUrl },
      cwd: t.dir,
      now: () => new Date(),
    });
    const code = await runCli(
      ['cancel', requestId, '--reason', 'local try-out', '--as', 'alice', '--local'],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    expect(realPosts).toEqual([]);
    const told = await t.stack.receiver.waitFor(
      (post) =>
        post.path === '/channel' &&
        JSON.stringify(post.body).includes(requestId) &&
        /ancelled/.test(JSON.stringify(post.body)),
      5_000,
    );
    expect(JSON.stringify(told.body)).toMatch(/[Cc]ancelled/);
  });
});
