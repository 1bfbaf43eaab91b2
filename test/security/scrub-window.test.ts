/**
 * d65c59f tells a configured string API key to the process scrubber on every call, so that it is
 * among the newest 16 secrets while the call runs. But telling a secret the scrubber holds
 * already was a no-op: its place in the window stayed where it was first told. A key that was
 * the oldest of the 16 was then pushed out by one secret learned during the call (a secrets
 * refresh), and the 401 that echoed it JSON-escaped carried it into the error and the logs.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleError, createConsoleClient } from '../../src/console/index.js';
import { rememberSecret } from '../../src/util/secret-scrub.js';
import { ok, type ScriptedServer, SEGMENT, startScriptedServer } from '../console/helpers/scripted-server.js';

const KEY = 'sk-live-NUMBAT-9d0c33e1-unmistakable';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const escaped = (text: string) =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

it('a string key told again at the start of a call stays scrubbed when a secret is learned during it', async () => {
  const client = createConsoleClient({
    baseUrl: server.url,
    apiKey: KEY,
    mutationBudget: false,
    maxRetries: 0,
    sleep: async () => undefined,
  });
  server.setScript(() => ok(SEGMENT));
  await client.segments.get('seg_1');
  // Fifteen newer secrets: the key (two forms at most, raw and trimmed: the same here) is the oldest of 16.
  for (let n = 0; n < 15; n++) rememberSecret(`requester-key-${n}-bbbbbbbbbbbbbbbb`);
  server.setScript((req) => {
    // A secrets refresh while the call runs: one more secret.
    rememberSecret('requester-key-refreshed-cccccccccccccccc');
    return {
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: `{"status":401,"message":"key ${escaped(String(req.headers['service-api-key']))} is not valid","errors":[]}`,
    };
  });
  const error = (await client.segments.get('seg_1').catch((e: unknown) => e)) as Error;
  expect(error).toBeInstanceOf(ConsoleError);
  const texts = [error.message, JSON.stringify(error), inspect(error, { depth: 10 }), error.stack ?? ''];
  for (const text of texts) expect(text).not.toContain('NUMBAT');
});
