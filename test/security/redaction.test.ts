/**
 * The key never leaves, in any encoding. A Console API peer echoes the key back in its error body
 * — raw, `\u`-escaped character by character, with `\/`, percent-encoded, base64, half escaped,
 * split across `message` and `errors[]` — and the key is found nowhere: not in the error's
 * String() or inspect(), not in log lines, not in the audit record (dynalite), not in what is
 * posted to Slack (a real HTTP capture), and not in any of those forms. The same for the Slack
 * signing secret once the secrets provider has read it.
 */
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, createConsoleClient } from '../../src/console/index.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createLogger } from '../../src/observability/logger.js';
import { environmentProvider } from '../../src/secrets/secrets.js';
import { postToSlack } from '../../src/slack/post.js';
import { readAudit, writeAudit } from '../../src/state/audit.js';
import { readPause } from '../../src/state/pause.js';
import { platformMessage } from '../../src/worker/execute.js';
import { outcomeMessage } from '../../src/worker/replies.js';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp, recordingSqs } from '../webhook/harness.js';

let api: ScriptedServer;
let slack: SlackCapture;
let emu: Emulators;
beforeAll(async () => {
  [api, slack, emu] = await Promise.all([startScriptedServer(), startSlackCapture(), startEmulators()]);
});
afterAll(async () => {
  await Promise.all([api?.close(), slack?.close(), emu?.stop()]);
});

const hex4 = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');
/** The ways a peer may echo `key` inside a JSON body (each returns the raw body text). */
const ECHOES: Record<string, (key: string) => string> = {
  raw: (key) => JSON.stringify({ status: 400, message: `bad key ${key}` }),
  unicodeEscaped: (key) =>
    `{"status":400,"message":"key ${[...key].map((c) => `\\u${hex4(c)}`).join('')} refused"}`,
  unicodeUpper: (key) =>
    `{"status":400,"message":"${[...key].map((c) => `\\u${hex4(c).toUpperCase()}`).join('')}"}`,
  halfEscaped: (key) =>
    `{"status":400,"message":"${[...key].map((c, i) => (i % 2 ? `\\u${hex4(c)}` : c === '"' ? '\\"' : c)).join('')}"}`,
  slashEscaped: (key) => `{"status":400,"message":"${key.replaceAll('/', '\\/')}"}`,
  urlEncoded: (key) => JSON.stringify({ status: 400, message: `see ?key=${encodeURIComponent(key)}` }),
  percentEveryChar: (key) =>
    JSON.stringify({
      status: 400,
      message: [...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
    }),
  base64: (key) => JSON.stringify({ status: 400, message: Buffer.from(key).toString('base64') }),
  // Inside a longer encoded text, at each of the other two byte alignments.
  base64AfterOneByte: (key) =>
    JSON.stringify({ status: 400, message: Buffer.from(`k${key}z`).toString('base64') }),
  base64urlAfterTwoBytes: (key) =>
    JSON.stringify({ status: 400, message: Buffer.from(`k=${key}&more`).toString('base64url') }),
  inErrors: (key) =>
    JSON.stringify({ status: 400, message: 'invalid', errors: [{ property: key, errorMessage: key }] }),
  split: (key) =>
    JSON.stringify({
      status: 400,
      message: key.slice(0, key.length >> 1),
      errors: [{ property: '', errorMessage: key.slice(key.length >> 1) }],
    }),
  inHeaderAndBody: (key) => JSON.stringify({ status: 400, message: `x-echo: ${key}` }),
};

/** Every form in which a reader could still recover `secret`. */
function leaks(text: string, secret: string): string[] {
  const forms = [
    secret,
    encodeURIComponent(secret),
    [...secret].map((c) => `\\u${hex4(c)}`).join(''),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    secret.replaceAll('/', '\\/'),
  ];
  const decoded = text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  // Any run of base64 characters, decoded from each of its first four positions (one is aligned).
  const base64Runs = (text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []).flatMap((run) =>
    [0, 1, 2, 3].flatMap((start) => [
      Buffer.from(run.slice(start), 'base64').toString('latin1'),
      Buffer.from(run.slice(start), 'base64url').toString('latin1'),
    ]),
  );
  return [
    ...forms.filter((f) => text.includes(f)),
    ...(decoded.includes(secret) ? ['decoded'] : []),
    ...(base64Runs.some((run) => run.includes(secret)) ? ['base64 inside a longer text'] : []),
  ];
}

const keyArbitrary = fc.stringMatching(/^[A-Za-z0-9/+_-]{16,40}$/);

describe('the Console API key, echoed back in any encoding', () => {
  it('reaches no error text, log line, audit record or Slack post', async () => {
    const table = { client: emu.dynamo, tableName: emu.tableName };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(keyArbitrary, fc.constantFrom(...Object.keys(ECHOES)), async (key, how) => {
        run += 1;
        const body = (ECHOES[how] as (k: string) => string)(key);
        api.setScript(() => ({
          status: 400,
          headers: { 'content-type': 'application/json', 'x-echo': key },
          body,
        }));
        const lines: string[] = [];
        const logger = createLogger({ service: 'worker', level: 'debug', sink: (l) => lines.push(l) });
        const client = createConsoleClient({
          baseUrl: api.url,
          apiKey: async () => key,
          maxRetries: 0,
          mutationBudget: false,
          logger,
        });
        const error = (await client.releasePipelineTriggers
          .approve('trg_1', { phaseID: 'ph_1' })
          .catch((e: unknown) => e)) as ApiError;
        expect(error.status).toBe(400);
        const reason = platformMessage(error);
        logger.error('approve failed', { error, reason, body: error.body, headers: error.headers });
        const requestId = `redaction-${run}`;
        await writeAudit(table, {
          requestId,
          at: new Date('2026-11-30T10:00:00Z'),
          action: 'approve_phase',
          target: 'trigger trg_1 phase ph_1',
          effectKey: 'approve_phase#trg_1#ph_1',
          requester: 'ci:deploy.yml',
          rule: 'CI',
          reason,
          result: 'rejected',
          dryRun: false,
        });
        const message = outcomeMessage({
          request: {
            version: 1,
            action: 'approve_phase',
            triggerId: 'trg_1',
            phaseId: 'ph_1',
            requestedBy: { source: 'ci', id: 'deploy.yml' },
            requestedAt: '2026-11-30T10:00:00Z',
          },
          requestId,
          result: 'rejected',
          rule: 'CI',
          reason,
          dryRun: false,
        });
        const before = slack.posts.length;
        await postToSlack(slack.url('/channel'), message, { allowedOrigins: [slack.origin] });
        const exits = {
          string: String(error),
          inspect: inspect(error, { depth: 5 }),
          json: JSON.stringify(error),
          logs: lines.join('\n'),
          audit: JSON.stringify(await readAudit(table, requestId)),
          slack: JSON.stringify(slack.posts.slice(before)),
        };
        for (const [where, text] of Object.entries(exits)) {
          expect(leaks(text, key), `${how} → ${where}`).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the Slack signing secret', () => {
  it('is scrubbed from every exit once the secrets provider holds it', async () => {
    const secret = 'sl4ck/signing+secret_0123456789abcdef';
    await environmentProvider({ SLACK_SIGNING_SECRET: secret }).get();
    const lines: string[] = [];
    const logger = createLogger({ service: 'webhook', sink: (l) => lines.push(l) });
    for (const [how, echo] of Object.entries(ECHOES)) {
      const text = JSON.parse(echo(secret)).message as string;
      logger.warn('peer said', { text, nested: { deeper: [text] } });
      expect(leaks(lines.join('\n'), secret), how).toEqual([]);
    }
    const before = slack.posts.length;
    await postToSlack(slack.url('/secret'), { text: `oops ${secret}` }, { allowedOrigins: [slack.origin] });
    expect(leaks(JSON.stringify(slack.posts.slice(before)), secret)).toEqual([]);
  });
});

describe('a secret a person types into a reason', () => {
  it('is not shown to the channel, stored with the pause, or queued with the request', async () => {
    const key = 'c0nsole+API/key_typed-by-mistake-42';
    // As the secrets provider does once it has read the key.
    await environmentProvider({ CONSOLE_API_KEY: key }).get();
    const table = { client: emu.dynamo, tableName: emu.tableName };
    const { sqs, sent } = recordingSqs();
    const { app, lines } = buildApp({ table, sqs });
    const say = async (text: string) => {
      const res = await app.request(signedRequest('/slack/commands', commandBody({ text })));
      expect(res.status).toBe(200);
      return res.text();
    };
    const replies = [
      await say(`pause rotating, the new key is ${key}`),
      await say(`archive old_banner replaced by ${encodeURIComponent(key)}`),
      await say(`resume`),
    ];
    const pauseBefore = replies[0] as string;
    expect(pauseBefore).toContain('[redacted]');
    const everything = [
      ...replies,
      JSON.stringify(await readPause(table)),
      JSON.stringify(sent),
      JSON.stringify(lines),
    ].join('\n');
    expect(leaks(everything, key)).toEqual([]);
  });
});
