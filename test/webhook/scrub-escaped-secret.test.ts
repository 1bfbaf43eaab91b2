/**
 * A reply that carries a held secret in a `\u`/`%` form. The scrubber used to decode the whole
 * serialized reply and return that: the reply was no longer valid JSON, and every `%3C`/`%3E`
 * elsewhere turned into a live `<`/`>` after escapeMrkdwn had run. Strings are scrubbed before
 * serializing now, and only the secret's own run is redacted.
 */
import { describe, expect, it } from 'vitest';
import { rememberSecret } from '../../src/util/secret-scrub.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);
// A secret the process holds (the secrets provider remembers every value it reads).
const KEY = 'console-key-4f2a9c';

async function reply(text: string) {
  rememberSecret(KEY);
  const { app } = buildApp({ now: () => NOW });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, userId: 'U0READER' }), { timestamp: NOW / 1000 }),
  );
  return { status: res.status, raw: await res.text() };
}

describe('a reply that carries a held secret in an escaped form', () => {
  it('is still valid JSON (the key typed \\u-escaped as a command)', async () => {
    const { status, raw } = await reply('\\u0063onsole-key-4f2a9c');
    expect(status).toBe(200);
    expect(raw).not.toContain(KEY);
    expect(() => JSON.parse(raw)).not.toThrow();
  });

  it('keeps escaped text escaped: no live <!channel> appears after scrubbing', async () => {
    const { status, raw } = await reply('%3C!channel%3E%63onsole-key-4f2a9c');
    expect(status).toBe(200);
    expect(raw).not.toContain(KEY);
    expect(raw).not.toContain('<!channel>');
  });
});
