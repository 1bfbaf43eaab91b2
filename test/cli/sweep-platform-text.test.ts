/**
 * `autopilot sweep --dry-run` ends its plan with "stopped early: error (<the error>)" when the
 * Console API fails a read; the error carries the platform's own `message` from the answer's
 * body. That is text from outside printed to the operator's terminal: an escape sequence in it
 * must be shown escaped, as the plan's table cells are.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { captureIo } from '../helpers/cli-io.js';

const ESC = '\u001b';
let emulators: Emulators;
let platform: Server;
let baseUrl = '';

beforeAll(async () => {
  emulators = await startEmulators();
  // A Console API that refuses every read with a message of its own.
  platform = createServer((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `bad cursor${ESC}[2J${ESC}]0;owned${ESC}\\` }));
  });
  await new Promise<void>((done) => platform.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(platform.address() as AddressInfo).port}/console/v1`;
});
afterAll(async () => {
  await new Promise((done) => platform?.close(done));
  await emulators?.stop();
});

describe('sweep --dry-run when the platform fails a read', () => {
  it('prints the platform message escaped', async () => {
    const t = captureIo({
      env: {
        CONSOLE_API_BASE_URL: baseUrl,
        CONSOLE_API_KEY: 'test-key',
        STATE_TABLE_NAME: emulators.tableName,
        AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AUTOPILOT_POLICY: 'policy.json',
      },
    });
    const code = await runCli(['sweep', '--dry-run'], t.io);
    expect(t.out()).toContain('stopped early');
    expect(code).toBe(1);
    expect(t.out()).not.toContain(ESC);
  });
});
