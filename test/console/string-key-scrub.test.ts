/**
 * A configured string API key: checked when the client is built (a key that is empty or not
 * printable ASCII fails construction), and kept known to the process scrubber on every call, so a
 * key pushed out of its newest-16 window by newer secrets is still scrubbed from an echo in any
 * encoding (here JSON `\u` escapes).
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleError, createConsoleClient } from '../../src/console/index.js';
import { rememberSecret } from '../../src/util/secret-scrub.js';
import { ok, type ScriptedServer, SEGMENT, startScriptedServer } from './helpers/scripted-server.js';

const KEY = 'sk-live-WOMBAT-5e1a77c2-unmistakable';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/** The key as a JSON serializer that escapes every character writes it. */
const escaped = (text: string) =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

describe('a string API key, after the process learned newer secrets', () => {
  it('is still scrubbed from a 401 that echoes it JSON-escaped', async () => {
    const client = createConsoleClient({
      baseUrl: server.url,
      apiKey: KEY,
      mutationBudget: false,
      maxRetries: 0,
      sleep: async () => undefined,
    });
    server.setScript(() => ok(SEGMENT));
    await client.segments.get('seg_1');
    // The process goes on learning secrets (a secrets refresh: signing secret, requester keys…).
    for (let n = 0; n < 16; n++) rememberSecret(`requester-key-${n}-aaaaaaaaaaaaaaaa`);
    server.setScript((req) => ({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: `{"status":401,"message":"key ${escaped(String(req.headers['service-api-key']))} is not valid","errors":[]}`,
    }));
    const error = (await client.segments.get('seg_1').catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(ConsoleError);
    const texts = [error.message, JSON.stringify(error), inspect(error, { depth: 10 }), error.stack ?? ''];
    for (const text of texts) expect(text).not.toContain('WOMBAT');
  });

  // Telling the scrubber a secret it knows used to leave it where it was first told: a key that was
  // the oldest of the 16 fell out when one more secret was learned during the call.
  it('stays scrubbed when a secret is learned during the call that echoes it', async () => {
    const key = 'sk-live-NUMBAT-9d0c33e1-unmistakable';
    const client = createConsoleClient({
      baseUrl: server.url,
      apiKey: key,
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
});

describe('a string API key that is not printable ASCII', () => {
  it('is refused when the client is built, as before the commit', () => {
    expect(() =>
      createConsoleClient({ baseUrl: server.url, apiKey: 'sk-live-\u0000broken-key', mutationBudget: false }),
    ).toThrow(ConsoleError);
  });
});
