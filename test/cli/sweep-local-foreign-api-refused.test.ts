/**
 * `autopilot sweep --dry-run --local` against a local stack started with CONSOLE_API_BASE_URL
 * (no embedded sandbox, so its endpoints file carries no sandbox key) filled the key in from the
 * CLI's shell: CONSOLE_READ_ONLY_API_KEY or CONSOLE_API_KEY exported there (a real platform's,
 * say) went to whatever Console API the stack was started against, and without one it sent
 * 'sandbox-key' there. --local never uses the shell's credentials: the dry run is refused (exit 1)
 * before any call, saying how to run it against that API with a key named on purpose.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { emu } = emulatorsForFile();
/** The Console API the stack was started against: what reaches it, and with which key. */
const seen: Array<{ url: string; key: string }> = [];
let api: Server;
let dir = '';

beforeAll(async () => {
  api = createServer((request, response) => {
    seen.push({ url: request.url ?? '', key: String(request.headers['service-api-key'] ?? '') });
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end('{"message":"unauthorized"}');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const consoleApiBaseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'autopilot-review-sweep-foreign-'));
  copyFileSync(resolve(import.meta.dirname, '../../policy.json'), join(dir, 'policy.json'));
  // As `CONSOLE_API_BASE_URL=… CONSOLE_API_KEY=… npm start` writes it: no sandbox key.
  writeFileSync(
    join(dir, 'endpoints.json'),
    JSON.stringify({
      webhookUrl: 'http://127.0.0.1:9',
      consoleApiBaseUrl,
      sqsEndpoint: emu.sqsEndpoint,
      queueUrl: emu.queueUrl,
      dlqUrl: emu.dlqUrl,
      dynamodbEndpoint: emu.dynamodbEndpoint,
      tableName: emu.tableName,
      slackReceiverUrl: 'http://127.0.0.1:9',
    }),
  );
});
afterAll(async () => {
  await new Promise<void>((resolve) => api?.close(() => resolve()));
});

const shells: Array<[string, Record<string, string>]> = [
  ['a read-only key', { CONSOLE_READ_ONLY_API_KEY: 'real-read-only-key-from-the-shell' }],
  ['a full key', { CONSOLE_API_KEY: 'real-key-from-the-shell' }],
  ['no key', {}],
];

describe('sweep --dry-run --local against a stack without the embedded sandbox', () => {
  it.each(shells)('with %s in the shell: refused before any call, exit 1', async (_name, keys) => {
    seen.length = 0;
    const run = captureIo({
      env: { AUTOPILOT_ENDPOINTS_FILE: join(dir, 'endpoints.json'), LOG_LEVEL: 'error', ...keys },
      cwd: dir,
      now: () => new Date('2031-03-30T09:00:00Z'),
    });
    const code = await runCli(['sweep', '--dry-run', '--local', '--json'], run.io);
    expect(seen).toEqual([]);
    expect(code, run.err()).toBe(1);
    expect(run.err()).toContain('not the embedded sandbox');
    expect(run.err()).not.toContain('real-');
    expect(run.out()).toBe('');
  });
});
