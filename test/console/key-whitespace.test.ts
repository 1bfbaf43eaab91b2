/**
 * A key with surrounding whitespace (a secret pasted with a trailing space or newline) is sent
 * trimmed, by Node's parser on the server or undici's Headers. The transport used to remember
 * and scrub only the untrimmed string, so a server echoing the key it received put the real key
 * into the error's message. Both forms are scrubbed now, and the trimmed one is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((req) => ({
    status: 401,
    body: { status: 401, message: `Invalid SERVICE-API-KEY ${String(req.headers['service-api-key'])}` },
  }));
});
afterAll(() => server.close());

const cases: Array<[string, string, boolean]> = [
  ['node sender, trailing space', 'live-key-Zq81xPo3 ', false],
  ['node sender, leading tab', '\tlive-key-Zq81xPo5', false],
  ['fetch sender, trailing newline', 'live-key-Zq81xPo4\n', true],
];

describe('an API key with surrounding whitespace', () => {
  it.each(cases)('is not echoed into the error (%s)', async (_label, key, useFetch) => {
    const client = createConsoleClient({
      baseUrl: server.url,
      apiKey: key,
      mutationBudget: false,
      maxRetries: 0,
      sleep: async () => {},
      ...(useFetch ? { fetch } : {}),
    });
    const error = (await client.segments.get('seg_1').catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    const trimmed = key.trim();
    const everything = `${error.message}\n${error.stack}\n${JSON.stringify(error)}`;
    expect(everything).not.toContain(trimmed);
  });
});
