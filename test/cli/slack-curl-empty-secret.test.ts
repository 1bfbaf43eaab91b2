/**
 * `autopilot slack curl` with `SLACK_SIGNING_SECRET` exported empty (`export SLACK_SIGNING_SECRET=`):
 * the local stack treats an empty variable as unset (src/config/env.ts optionalEnv) and verifies
 * with the local default, so the curl must be signed with that too, not with "". The printed curl
 * is sent, as pasted, to the real webhook app holding the local default secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { LOCAL_SIGNING_SECRET } from '../../src/local/sign.js';
import { captureIo } from '../helpers/cli-io.js';
import { buildApp, memorySecrets } from '../webhook/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-slack-curl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date('2026-11-23T10:00:00Z');

/** The request a printed curl sends: its URL, headers and body (single-quoted shell words). */
function fromCurl(curl: string): { url: string; headers: Record<string, string>; body: string } {
  const words = [...curl.matchAll(/'((?:[^']|'\\'')*)'/g)].map((m) => (m[1] ?? '').replaceAll(`'\\''`, `'`));
  const [url, ...rest] = words;
  const body = rest.pop() ?? '';
  const headers = Object.fromEntries(
    rest.map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim()]),
  );
  return { url: url ?? '', headers, body };
}

it('signs with the local default when SLACK_SIGNING_SECRET is exported empty, as the stack verifies', async () => {
  const endpoints = join(dir, 'endpoints.json');
  writeFileSync(
    endpoints,
    JSON.stringify({ webhookUrl: 'http://127.0.0.1:8787', slackReceiverUrl: 'http://127.0.0.1:8788' }),
  );
  const run = captureIo({
    env: { AUTOPILOT_ENDPOINTS_FILE: endpoints, SLACK_SIGNING_SECRET: '' },
    now: () => NOW,
  });
  expect(await runCli(['slack', 'curl', 'help'], run.io), run.err()).toBe(0);

  // The webhook as the local stack started with that environment runs it: the local default secret.
  const { app } = buildApp({ secrets: memorySecrets(LOCAL_SIGNING_SECRET), now: () => NOW.getTime() });
  const request = fromCurl(run.out());
  const response = await app.fetch(
    new Request(request.url, { method: 'POST', headers: request.headers, body: request.body }),
  );
  expect(response.status).toBe(200);
});
