/**
 * What the client keeps between requests must not go stale: the header object per key, the
 * key's forms for the scrubber (the process scrubber skips re-telling the secret it was told
 * last). Here a key is rotated after many requests with the old one: the new key is sent, and
 * both keys are scrubbed from every echo, in a 2xx body (raw and JSON-escaped) and in an error's.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createConsoleClient } from '../../src/console/index.js';
import { rememberSecret, scrubSecrets } from '../../src/util/secret-scrub.js';

const OLD_KEY = 'old-key-4f9a1c2e7b';
const NEW_KEY = 'new-key-8d3b6e0f5a';
const unicodeEscaped = (text: string) =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

let server: Server;
let base: string;
let accepted = OLD_KEY;
const sentKeys: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = String(req.headers['service-api-key']);
    sentKeys.push(key);
    res.setHeader('content-type', 'application/json');
    if (key !== accepted) {
      res.statusCode = 401;
      res.end(JSON.stringify({ message: `invalid key ${key}` }));
      return;
    }
    if (req.url?.endsWith('/missing')) {
      res.statusCode = 404;
      res.end(JSON.stringify({ message: `no segment for ${OLD_KEY} or ${key}` }));
      return;
    }
    // Written by hand: the escaped echo must reach the client as JSON escapes.
    res.end(
      `{"message":"read with ${key}","data":{"id":"beta","type":"id_list",` +
        `"description":"${unicodeEscaped(key)} after ${OLD_KEY}"}}`,
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe('per-client caches', () => {
  it('send a rotated key and scrub both keys, after many requests with the headers cached', async () => {
    let current = OLD_KEY;
    const client = createConsoleClient({
      baseUrl: base,
      apiKey: ({ afterUnauthorized }) => {
        if (afterUnauthorized) current = NEW_KEY;
        return current;
      },
      mutationBudget: false,
      maxRetries: 0,
    });
    for (let i = 0; i < 300; i++) {
      const segment = await client.segments.get('beta');
      expect(segment.description).toBe('[redacted] after [redacted]');
    }
    expect(new Set(sentKeys)).toEqual(new Set([OLD_KEY]));

    accepted = NEW_KEY; // rotated at the platform: the old key gets a 401, the provider is asked again
    const segment = await client.segments.get('beta');
    expect(sentKeys.slice(-2)).toEqual([OLD_KEY, NEW_KEY]);
    expect(segment.description).toBe('[redacted] after [redacted]');
    expect(JSON.stringify(segment)).not.toMatch(/old-key|new-key/);

    const again = await client.segments.get('beta');
    expect(sentKeys.at(-1)).toBe(NEW_KEY);
    expect(again.description).toBe('[redacted] after [redacted]');

    const error = await client.segments.get('missing').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(JSON.stringify({ ...(error as ApiError), message: (error as Error).message })).not.toMatch(
      /old-key|new-key/,
    );
  });

  it('scrub a secret told again after others pushed it out of the scrubber', () => {
    const secret = 'kept-secret-0c7d2a9f';
    rememberSecret(secret);
    rememberSecret(secret); // told again while newest: nothing moves
    expect(scrubSecrets(`a ${secret} b`)).toBe('a [redacted] b');
    for (let i = 0; i < 20; i++) rememberSecret(`other-secret-${i}-abcdef`);
    expect(scrubSecrets(`a ${secret} b`)).toBe(`a ${secret} b`); // evicted: only the newest 16 are kept
    rememberSecret(secret);
    expect(scrubSecrets(`a ${secret} b`)).toBe('a [redacted] b');
    rememberSecret('other-secret-0-abcdef');
    rememberSecret(secret); // no longer the newest: moved back to the front
    for (let i = 1; i < 16; i++) rememberSecret(`other-secret-${i}-abcdef`);
    expect(scrubSecrets(`a ${secret} b`)).toBe('a [redacted] b');
  });
});
