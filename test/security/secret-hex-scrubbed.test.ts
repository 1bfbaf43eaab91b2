/**
 * A secret echoed back hex-encoded. The scrubber knows a secret raw, JSON-escaped, %-encoded,
 * base64(url) and mrkdwn-escaped, but not as hex: a Console API peer that names the key it
 * refused by its bytes (`unknown key 636b5f…`, as gateways and debug pages print a header they
 * could not match) had it carried into the client's error, the worker's log line, the audit
 * trail's reason and the outcome posted to the channel, where `xxd -r -p` gives the key back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';
import { exitsOfRefusedApprove } from './refused-approve.js';

// Not a real key: made up for this test.
const KEY = 'ck_test_7Qx9Lm2Rv8Np4Ws6';
const hexOf = (text: string) => Buffer.from(text, 'utf8').toString('hex');

let api: ScriptedServer;
let slack: SlackCapture;
beforeAll(async () => {
  [api, slack] = await Promise.all([startScriptedServer(), startSlackCapture()]);
});
afterAll(async () => {
  await Promise.all([api?.close(), slack?.close()]);
});

/** Whether `text` still spells the key as hex, either case (never prints the key or the text). */
function spellsKeyInHex(text: string): boolean {
  const lower = text.toLowerCase();
  return lower.includes(hexOf(KEY));
}

describe('the Console API key, echoed back as hex', () => {
  for (const [how, encode] of [
    ['lower-case hex', (key: string) => hexOf(key)],
    ['upper-case hex', (key: string) => hexOf(key).toUpperCase()],
    ['hex inside a longer hex dump', (key: string) => hexOf(`SERVICE-API-KEY: ${key}\r\n`)],
  ] as const) {
    it(`reaches no error text, log line or Slack post (${how})`, async () => {
      const exits = await exitsOfRefusedApprove(api, slack, {
        key: KEY,
        message: `unknown key ${encode(KEY)}`,
        requestId: 'ci-hex-1',
      });
      // Booleans only: a failing assertion must not print the key's hex either.
      const leaked = Object.entries(exits)
        .filter(([, text]) => spellsKeyInHex(text))
        .map(([where]) => where);
      expect(leaked).toEqual([]);
      expect(exits.slack).toContain('[redacted]');
    });
  }
});
