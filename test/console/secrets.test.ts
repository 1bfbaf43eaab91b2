import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiTimeoutError,
  AuthenticationError,
  type ConsoleClientOptions,
  createConsoleClient,
  InternalServerError,
  ResponseValidationError,
} from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { ok, type ScriptedServer, SEGMENT, startScriptedServer } from './helpers/scripted-server.js';

const KEY = 'sk-live-ZEBRA-7f3c91d0-unmistakable';
const ROTATED = 'sk-live-OKAPI-20b4e6aa-unmistakable';

let server: ScriptedServer;
let lines: string[];
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  lines = [];
  server.requests.length = 0;
});

const client = (extra: Partial<ConsoleClientOptions> = {}) =>
  createConsoleClient({
    baseUrl: server.url,
    apiKey: KEY,
    mutationBudget: false,
    sleep: async () => undefined,
    logger: createLogger({ service: 'test', level: 'debug', sink: (line) => lines.push(line) }),
    ...extra,
  });

/** Every way an error ends up as text: message, toString, JSON and util.inspect. */
function renderings(error: unknown): string[] {
  const e = error as Error;
  return [
    e.message,
    String(e),
    e.toString(),
    JSON.stringify(e),
    inspect(e, { depth: 10, showHidden: true }),
    e.stack ?? '',
  ];
}

function expectNoKey(error: unknown) {
  expect(error).toBeInstanceOf(Error);
  for (const text of [...renderings(error), ...lines]) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(ROTATED);
    expect(text).not.toContain('ZEBRA');
    expect(text).not.toContain('OKAPI');
  }
}

describe('the API key never leaks', () => {
  it('is sent to the server (so the checks below are meaningful)', async () => {
    server.setScript(() => ok(SEGMENT));
    await client().segments.get('seg_1');
    expect(server.requests[0]?.headers['service-api-key']).toBe(KEY);
  });

  it('is absent from a 401 whose body and headers echo it back', async () => {
    server.setScript((req) => ({
      status: 401,
      headers: { 'x-echo': String(req.headers['service-api-key']) },
      body: { status: 401, message: `key ${req.headers['service-api-key']} is not valid`, errors: [] },
    }));
    const error = await client()
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toContain('[redacted]');
    expectNoKey(error);
  });

  it('is absent after a key rotation that fails, for old and new key alike', async () => {
    let asked = 0;
    server.setScript((req) => ({ status: 401, body: `denied: ${req.headers['service-api-key']}` }));
    const error = await client({ apiKey: () => (asked++ === 0 ? KEY : ROTATED) })
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(server.requests).toHaveLength(2);
    expectNoKey(error);
  });

  it('is absent from 5xx errors and the retry log lines', async () => {
    server.setScript((req) => ({ status: 503, body: `<html>${req.headers['service-api-key']}</html>` }));
    const error = await client()
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(lines.length).toBeGreaterThan(0);
    expectNoKey(error);
  });

  it('is absent from a connection error, even when the fetch failure names it', async () => {
    const leakyFetch: typeof fetch = async (_url, init) => {
      const headers = init?.headers as Record<string, string>;
      throw new TypeError('fetch failed', {
        cause: new Error(`socket hang up sending ${headers['SERVICE-API-KEY']}`),
      });
    };
    const error = await client({ fetch: leakyFetch })
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expectNoKey(error);
  });

  it('is absent from timeout and response validation errors', async () => {
    server.setScript(() => 'hang');
    const timeout = await client({ timeoutMs: 50, maxRetries: 0 })
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(timeout).toBeInstanceOf(ApiTimeoutError);
    expectNoKey(timeout);
    server.setScript((req) => ok({ ...SEGMENT, type: req.headers['service-api-key'] }));
    const invalid = await client()
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ResponseValidationError);
    expectNoKey(invalid);
  });

  it('keeps no request headers on an error object', async () => {
    server.setScript(() => ({ status: 404, body: { message: 'no such segment' } }));
    const error = (await client()
      .segments.get('seg_1')
      .catch((e: unknown) => e)) as Record<string, unknown>;
    const serialized = JSON.stringify(error).toLowerCase();
    expect(serialized).not.toContain('service-api-key');
    expect(inspect(error, { depth: 10, showHidden: true }).toLowerCase()).not.toContain('service-api-key');
  });
});
