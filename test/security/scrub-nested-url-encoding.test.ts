/**
 * A secret URL-encoded more than once. The scrubber decoded `%XX` once: a secret put in a URL that
 * was itself put in a query string (`?next=https%253A%252F%252Fhooks.slack.com…`) came out of one
 * decoding still %-encoded, matched no form, and went into the log line, the client's error and
 * the outcome posted to the channel. Here the Slack incoming-webhook URL (from the secret) and a
 * Console API key holding `/`, `+` and `=` (which encoding changes) come back encoded two and
 * three times; the scrubber looks through a few levels of encoding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentProvider } from '../../src/secrets/secrets.js';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';
import { exitsOfRefusedApprove } from './refused-approve.js';

// Not real credentials: made up for this test.
const WEBHOOK_URL = 'https://hooks.slack.com/services/T0NESTED/B0NESTED/nEsTeDwEbHoOkToKeN42';
const KEY = 'ck_test/Nx7+Qw9=Lm2Rv8';

const encoded = (text: string, times: number) => {
  let out = text;
  for (let i = 0; i < times; i++) out = encodeURIComponent(out);
  return out;
};

/** Whether `text` spells a secret in any number of URL-encodings (true/false only: never prints it). */
function spells(text: string, secret: string): boolean {
  let level = text;
  for (let i = 0; i < 6; i++) {
    if (level.includes(secret)) return true;
    try {
      level = decodeURIComponent(level);
    } catch {
      level = level.replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
    }
  }
  return level.includes(secret);
}

let api: ScriptedServer;
let slack: SlackCapture;
beforeAll(async () => {
  [api, slack] = await Promise.all([startScriptedServer(), startSlackCapture()]);
  // The secrets the worker holds, registered as the process registers them (from its secret).
  environmentProvider({ CONSOLE_API_KEY: KEY, SLACK_WEBHOOK_URL: WEBHOOK_URL });
});
afterAll(async () => {
  await Promise.all([api?.close(), slack?.close()]);
});

describe('a secret URL-encoded twice or more', () => {
  for (const times of [2, 3]) {
    it(`reaches no log line, error or Slack post (encoded ${times} times)`, async () => {
      const login = `https://console.example/login?next=${encoded(`https://api.example/?key=${KEY}`, times - 1)}`;
      const exits = await exitsOfRefusedApprove(api, slack, {
        key: KEY,
        message: `unknown key; sign in at ${encoded(login, 1)}`,
        requestId: `ci-nested-${times}`,
        before: (logger) =>
          logger.warn('could not post', { link: `https://proxy.example/?to=${encoded(WEBHOOK_URL, times)}` }),
        reasonSuffix: ` (channel ${encoded(WEBHOOK_URL, times)})`,
      });
      const leaked = Object.entries(exits).flatMap(([where, text]) => [
        ...(spells(text, KEY) ? [`${where}: key`] : []),
        ...(spells(text, WEBHOOK_URL) ? [`${where}: webhook URL`] : []),
      ]);
      expect(leaked).toEqual([]);
      expect(exits.slack).toContain('[redacted]');
      // The rest of the link stays as it was: only the secret's run is replaced.
      expect(exits.logs).toContain('https://proxy.example/?to=[redacted]');
    });
  }
});
