/**
 * README "Local stack": the embedded sandbox is used with `sandbox-key` "unless
 * CONSOLE_API_BASE_URL is set — then that API is used with CONSOLE_API_KEY". An operator whose
 * shell still exports CONSOLE_API_KEY (their real key, for a dev run against the platform) and
 * runs `npm start` gets the embedded sandbox: its functions must hold a key the sandbox accepts,
 * not the operator's key, which it answers 401 (every mutation would fail, the banner saying
 * "key sandbox-key" all the while).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootLocalStack, type LocalStack } from '../../src/local/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-review-key-'));
let stack: LocalStack;

beforeAll(async () => {
  stack = await bootLocalStack({
    port: 0,
    stateDir: dir,
    consoleApiKey: 'an-operators-real-key',
    sweepIntervalSeconds: false,
    release: { intervalSeconds: false },
    worker: { autoStart: false },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false },
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start with CONSOLE_API_KEY set but no CONSOLE_API_BASE_URL', () => {
  it('runs on the embedded sandbox with a key the sandbox accepts', async () => {
    expect(stack.components.sandbox).toBe('running');
    const key = stack.env.CONSOLE_API_KEY as string;
    const answer = await fetch(`${stack.endpoints.consoleApiBaseUrl}/console/v1/segments?limit=1`, {
      headers: { 'SERVICE-API-KEY': key },
    });
    expect(answer.status).toBe(200);
    expect(key).not.toBe('an-operators-real-key');
  });
});
