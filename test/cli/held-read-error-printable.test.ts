/**
 * `autopilot held` when the state table cannot be read: the error came from the AWS SDK (the text
 * is the endpoint's) and was printed as it came, inside "cannot read the held requests of …", so a
 * secret it echoed reached the terminal, and an escape sequence in it drove the terminal. The
 * embedded message is now scrubbed and printable (errorText), as an unexpected error's is.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { rememberSecret } from '../../src/util/secret-scrub.js';
import { captureIo } from '../helpers/cli-io.js';

const SECRET = 'ck_live_heldread0123456789abcdef01234567';
let server: Server;
let endpoint = '';

beforeAll(async () => {
  rememberSecret(SECRET);
  // A DynamoDB endpoint answering every call with an error whose message holds an escape and a secret.
  server = createServer((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(
      JSON.stringify({
        __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',
        message: `no table \u001b]0;owned\u0007\u001b[2J for key ${SECRET}`,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('autopilot held, the table unreadable', () => {
  it('prints the SDK error scrubbed and without live escape sequences', async () => {
    const t = captureIo({
      env: {
        STATE_TABLE_NAME: 'autopilot-state',
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
        AWS_MAX_ATTEMPTS: '1',
      },
    });
    expect(await runCli(['held'], t.io)).not.toBe(0);
    const err = t.err();
    expect(err).toContain('cannot read the held requests of autopilot-state: ');
    expect(err).toContain('no table');
    expect(err).not.toContain(SECRET);
    expect(err).not.toContain('\u001b');
    expect(err).not.toContain('\u0007');
  });
});
