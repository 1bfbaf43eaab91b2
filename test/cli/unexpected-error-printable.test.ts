/**
 * The CLI's last resort for an error no command expected (run.ts) printed its name and message
 * as they came: an AWS error's message is the service's text, and it reached the terminal
 * unscrubbed (a secret the process holds, echoed back by a peer) and with its escape sequences
 * live (clearing the screen, retitling the window). It is now printed as `held`'s warnings are:
 * secrets scrubbed, control characters shown as escapes (io.ts `errorText`).
 *
 * `sweep --dry-run` with a Console API key in its environment (the client tells the scrubber of it)
 * against a DynamoDB stand-in whose every answer is an error echoing that key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const ESC = '\u001b';
const KEY = 'sk-live-NUMBAT-5c2a9e17-unmistakable';
let dynamo: Server;
let endpoint = '';

beforeAll(async () => {
  dynamo = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ValidationException',
          message: `key ${KEY} refused${ESC}[2J${ESC}]0;owned${ESC}\\`,
        }),
      );
    });
  });
  await new Promise<void>((done) => dynamo.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => dynamo?.close(done));
});

describe('an error no command expected', () => {
  it('is printed with its name, scrubbed of secrets and with its escape sequences shown', async () => {
    const t = captureIo({
      env: {
        // Nothing listens here: the run fails at the state table before any Console API call.
        CONSOLE_API_BASE_URL: 'http://127.0.0.1:9/console/v1',
        CONSOLE_API_KEY: KEY,
        STATE_TABLE_NAME: 'autopilot-state',
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AUTOPILOT_POLICY: 'policy.json',
      },
    });
    const code = await runCli(['sweep', '--dry-run'], t.io);
    expect(code).toBe(1);
    const err = t.err();
    expect(err).toContain(
      'autopilot: ValidationException: key [redacted] refused\\u001b[2J\\u001b]0;owned\\u001b\\',
    );
    expect(err).not.toContain(KEY);
    expect(err).not.toContain(ESC);
  });
});
