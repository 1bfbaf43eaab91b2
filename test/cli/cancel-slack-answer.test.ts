/**
 * `autopilot cancel` tells the channel (SLACK_WEBHOOK_URL) and, when a post fails, warns with
 * Slack's answer. That answer is text from outside (up to 200 characters of the response body)
 * and reached the operator's terminal raw: an escape sequence in it drove the terminal. It is now
 * shown printable, as every other text from outside the CLI prints.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, heldNightly, nightlyAsks, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;
/** A channel webhook that refuses every post with a body carrying terminal escapes. */
const hostile = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(400).end('\u001b]0;owned\u0007\u001b[2Jinvalid_payload'));
});
let channelUrl = '';

beforeAll(async () => {
  t = await bootTestStack('review-cli-cancel-answer', nightlyAsks);
});
beforeAll(async () => {
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  channelUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/services/T0/B0/x`;
});
afterAll(async () => {
  hostile.closeAllConnections();
  await new Promise((resolve) => hostile.close(resolve));
  await t?.stop();
});

describe('autopilot cancel: a failed post to the channel', () => {
  it("warns with Slack's answer shown printable", async () => {
    const requestId = 'review-cli-cancel-answer-1';
    await heldNightly(t, requestId);

    // As on a deployed stack (the table named, not --local: a local cancel tells the stack's own channel).
    const env = {
      STATE_TABLE_NAME: t.stack.endpoints.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: t.stack.endpoints.dynamodbEndpoint,
      SLACK_WEBHOOK_URL: channelUrl,
    };
    const run = captureIo({ env, cwd: t.dir, now: () => new Date() });
    const code = await runCli(
      ['cancel', requestId, '--reason', 'superseded', '--as', 'alice', '--policy', t.stack.policyPath],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    expect(run.err()).toContain('invalid_payload');
    for (const raw of ['\u001b', '\u0007']) expect(run.err()).not.toContain(raw);
    // The channel URL is a credential: only its origin is named.
    expect(run.err()).not.toContain('/services/');
  });
});
