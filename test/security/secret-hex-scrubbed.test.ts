/**
 * A secret echoed back hex-encoded. The scrubber knows a secret raw, JSON-escaped, %-encoded,
 * base64(url) and mrkdwn-escaped, but not as hex: a Console API peer that names the key it
 * refused by its bytes (`unknown key 636b5f…`, as gateways and debug pages print a header they
 * could not match) had it carried into the client's error, the worker's log line, the audit
 * trail's reason and the outcome posted to the channel, where `xxd -r -p` gives the key back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, createConsoleClient } from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { postToSlack } from '../../src/slack/post.js';
import { platformMessage } from '../../src/worker/execute.js';
import { outcomeMessage } from '../../src/worker/replies.js';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';

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
      api.setScript(() => ({
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 401, message: `unknown key ${encode(KEY)}` }),
      }));
      const lines: string[] = [];
      const logger = createLogger({ service: 'worker', sink: (line) => lines.push(line) });
      const client = createConsoleClient({
        baseUrl: api.url,
        apiKey: async () => KEY,
        maxRetries: 0,
        mutationBudget: false,
        logger,
      });
      const error = (await client.releasePipelineTriggers
        .approve('trg_1', { phaseID: 'ph_1' })
        .catch((e: unknown) => e)) as ApiError;
      expect(error.status).toBe(401);
      const reason = platformMessage(error);
      logger.error('approve failed', { error, reason });
      const before = slack.posts.length;
      await postToSlack(
        slack.url('/services/T0/B0/hex'),
        outcomeMessage({
          request: {
            version: 1,
            action: 'approve_phase',
            triggerId: 'trg_1',
            phaseId: 'ph_1',
            requestedBy: { source: 'ci', id: 'deploy.yml' },
            requestedAt: '2026-11-30T10:00:00Z',
          },
          requestId: 'ci-hex-1',
          result: 'rejected',
          rule: 'CI',
          reason,
          dryRun: false,
        }),
        { allowedOrigins: [slack.origin] },
      );
      const exits = {
        error: `${String(error)} ${error.said ?? ''}`,
        reason,
        logs: lines.join('\n'),
        slack: JSON.stringify(slack.posts.slice(before)),
      };
      // Booleans only: a failing assertion must not print the key's hex either.
      const leaked = Object.entries(exits)
        .filter(([, text]) => spellsKeyInHex(text))
        .map(([where]) => where);
      expect(leaked).toEqual([]);
      expect(exits.slack).toContain('[redacted]');
    });
  }
});
