/**
 * A chat read the platform failed (`/autopilot role`, `segments`, `events` …) is answered "the
 * platform did not answer properly" / "refused the key" (outcome `platform_error`) or "is slow" /
 * "busy" (outcome `slow`), and its request line is what on-call reads for the cause (README's
 * runbook: the line's `error`). The line kept the outcome but dropped the client's error, and was
 * written at info: a revoked key, a 5xx, a 429 or a hang all looked alike, with no cause. As for
 * the state table's failures (describeStateFailure), the (scrubbed) error now stays on the line,
 * at warn. The webhook on the Console API sandbox over HTTP with its faults, real signed requests.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { NO_FAULTS, type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 42, rateLimits: false });
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.sandbox.setFaults(NO_FAULTS);
});

async function requestLine(text: string, options: { apiKey?: string; deadlineMs?: number } = {}) {
  const console = createConsoleClient({
    baseUrl: sandbox.url,
    apiKey: options.apiKey ?? 'sandbox-key',
    timeoutMs: 2_000,
    maxRetries: 0,
    mutationBudget: false,
  });
  const { app, requestLines } = buildApp({
    console,
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
  });
  const res = await app.request(signedRequest('/slack/commands', commandBody({ text, userId: 'U0READER' })));
  expect(res.status).toBe(200);
  return requestLines().at(-1) as Record<string, unknown>;
}

describe("a chat read the platform fails keeps the client's error on its request line, at warn", () => {
  it('a 5xx: platform_error', async () => {
    sandbox.sandbox.setFaults({ ...NO_FAULTS, errorRate: 1 });
    const line = await requestLine('events 2');
    expect(line).toMatchObject({ command: 'events', outcome: 'platform_error', level: 'warn' });
    expect(line.error).toMatchObject({ message: expect.stringMatching(/50\d/) });
  });

  it('a refused key: platform_error, the key itself never on the line', async () => {
    const line = await requestLine('role member', { apiKey: 'revoked-key-0123456789abcdef' });
    expect(line).toMatchObject({ command: 'role', outcome: 'platform_error', level: 'warn' });
    expect(line.error).toMatchObject({ message: expect.stringMatching(/401/) });
    expect(JSON.stringify(line)).not.toContain('revoked-key-0123456789abcdef');
  });

  it('a 429: slow', async () => {
    sandbox.sandbox.setFaults({ ...NO_FAULTS, rateLimitRate: 1 });
    const line = await requestLine('segments');
    expect(line).toMatchObject({ command: 'segments', outcome: 'slow', level: 'warn' });
    expect(line.error).toMatchObject({ message: expect.stringMatching(/429/) });
  });

  it('the deadline passed on a hanging platform: slow', async () => {
    sandbox.sandbox.setFaults({ ...NO_FAULTS, hangRate: 1 });
    const line = await requestLine('segments', { deadlineMs: 200 });
    sandbox.sandbox.releaseHangs();
    expect(line).toMatchObject({ command: 'segments', outcome: 'slow', level: 'warn' });
    // Two timers end at the same deadline: the webhook's (DeadlineError) and the client's own
    // attempt timer, which the client bounds by the deadline it is given (ApiTimeoutError). Which
    // fires first is the timers' order within one millisecond; either is the deadline, on the line.
    expect(['DeadlineError', 'ApiTimeoutError']).toContain((line.error as { name?: unknown }).name);
  });
});
