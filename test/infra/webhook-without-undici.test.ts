/**
 * The webhook as deployed answers its requests without loading undici. On Node the global
 * `Headers`, `Request` and `Response` are lazy, and the first use of any of them loads undici:
 * about a fifth of the webhook's first request after a cold start (src/webhook/event-headers.ts).
 * The bundle is built with the deployed options (infra/bundling.ts) and driven in a fresh `node`
 * process, as Lambda drives it, with HTTP API events: a signed command, an ssl_check, an
 * interaction Slack never sent, a forged signature, a route that does not exist, the health check
 * and an event no Request could be made of. The process's clock is the test's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundledPolicy,
  esbuildOptions,
  HANDLER_ENTRIES,
  REPO_ROOT,
  writeBundledPolicy,
} from '../../infra/bundling.js';
import { type HttpRequestSpec, httpApiV2Event } from '../helpers/http-events.js';
import { LAMBDA_PROCESS_ENV } from '../helpers/lambda-process-env.js';
import { commandBody, interactionBody, SIGNING_SECRET, slackHeaders } from '../helpers/slack-requests.js';

/** The events' arrival (http-events.ts) and a moment later: the child's clock and Slack's timestamps. */
const ARRIVED = 1_790_000_000_000;
const NOW = ARRIVED + 40;
const TS = Math.floor(NOW / 1000);

const work = mkdtempSync(join(tmpdir(), 'autopilot-webhook-undici-'));
const bundle = join(work, 'index.mjs');

beforeAll(async () => {
  const policy = bundledPolicy('policy.json');
  await build(esbuildOptions(join(REPO_ROOT, HANDLER_ENTRIES.webhook), bundle, policy));
  writeBundledPolicy(work, policy);
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the events through the bundle's handler, in order, in one fresh process. */
const PROBE = `
const [bundle, now, events, out] = [process.argv[1], Number(process.argv[2]), JSON.parse(process.argv[3]), process.argv[4]];
Date.now = () => now;
const { handler } = await import(bundle);
const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 3000 };
const results = [];
for (const event of events) {
  const { statusCode, body, headers } = await handler(event, context);
  results.push({ statusCode, body, contentType: headers?.['content-type'] });
}
const undiciLoaded = process.moduleLoadList.some((entry) => entry.includes('undici'));
// A file, not stdout: the handler's log lines go there.
(await import('node:fs')).writeFileSync(out, JSON.stringify({ results, undiciLoaded }));
`;

type Answer = { statusCode: number; body: string; contentType?: string };

function drive(specs: HttpRequestSpec[]): { results: Answer[]; undiciLoaded: boolean } {
  const events = specs.map(httpApiV2Event);
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      PROBE,
      pathToFileURL(bundle).href,
      String(NOW),
      JSON.stringify(events),
      join(work, 'out.json'),
    ],
    {
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        ...LAMBDA_PROCESS_ENV,
        AUTOPILOT_POLICY: join(work, 'policy.json'),
        CONSOLE_API_BASE_URL: 'http://127.0.0.1:9',
        CONSOLE_API_KEY: 'test-console-key-0123456789',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        WEBHOOK_REQUESTER_KEY: 'test-requester-key-0123456789abcdef0123456789',
        ACTIONS_QUEUE_URL: 'http://127.0.0.1:9/123456789012/actions',
        STATE_TABLE_NAME: 'autopilot-state',
        LOG_LEVEL: 'error',
      },
    },
  );
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(readFileSync(join(work, 'out.json'), 'utf8'));
}

const signed = (body: string) => slackHeaders(body, { timestamp: TS, secret: SIGNING_SECRET });

describe('the webhook bundle as deployed', () => {
  it('answers commands, checks, refusals and odd events without loading undici', () => {
    const help = commandBody({ text: 'help' });
    const sslCheck = 'ssl_check=1&token=x';
    const interaction = interactionBody({ type: 'not-a-slack-type' });
    const forged = commandBody({ text: 'approve trg_1 ph_1' });
    const { results, undiciLoaded } = drive([
      { method: 'POST', path: '/slack/commands', headers: signed(help), body: help },
      { method: 'POST', path: '/slack/commands', headers: signed(sslCheck), body: sslCheck },
      { method: 'POST', path: '/slack/interactions', headers: signed(interaction), body: interaction },
      {
        method: 'POST',
        path: '/slack/commands',
        headers: { ...signed(forged), 'x-slack-signature': `v0=${'0'.repeat(64)}` },
        body: forged,
      },
      { method: 'GET', path: '/nowhere' },
      { method: 'GET', path: '/health' },
      { method: 'GET', path: '/health', headers: { 'x-note': 'one\ntwo' } },
    ]);
    expect(results.map((r) => [r.statusCode, r.contentType])).toEqual([
      [200, 'application/json'],
      [200, undefined],
      [200, undefined],
      [401, 'application/json'],
      [404, 'application/json'],
      [200, 'application/json'],
      [400, 'text/plain;charset=UTF-8'],
    ]);
    expect(JSON.parse(results[0]?.body as string).text).toContain('What you can do');
    expect(results[1]?.body).toBe('');
    expect(JSON.parse(results[3]?.body as string)).toMatchObject({ error: 'signature_mismatch' });
    expect(JSON.parse(results[5]?.body as string)).toEqual({
      ok: true,
      service: 'console-autopilot-webhook',
    });
    expect(results[6]?.body).toBe('Invalid request');
    expect(undiciLoaded).toBe(false);
  });
});

describe('the webhook source', () => {
  it('answers only through textReply: no Hono reply, status or header of its own outside the adapter', () => {
    // `c.json`, `c.text` and `c.body` make a Response (undici); `c.header` and `c.status` before a
    // reply would be dropped under the adapter, whose replies carry only what textReply is given.
    const dir = join(REPO_ROOT, 'src', 'webhook');
    const offenders = readdirSync(dir)
      .filter((name) => name.endsWith('.ts') && name !== 'lambda-adapter.ts')
      .flatMap((name) =>
        readFileSync(join(dir, name), 'utf8')
          .split('\n')
          .map((line, index) => ({ where: `${name}:${index + 1}`, line }))
          .filter(({ line }) => !/^\s*(?:\*|\/\/)/.test(line))
          .filter(({ line }) =>
            /\bc\.(?:json|text|body|html|redirect|header|status|newResponse)\(|\bc\.res\s*=/.test(line),
          ),
      );
    expect(offenders).toEqual([]);
    // The check reads the routes' module (not vacuous).
    expect(readFileSync(join(dir, 'app.ts'), 'utf8')).toContain('textReply(c, null, 200, {})');
  });
});
