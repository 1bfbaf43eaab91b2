/**
 * `npm run sandbox` with a value it cannot use (README, "Console API sandbox" and "Environment":
 * a value that cannot be used stops at start with an error naming the variable; numbers are
 * decimal digits only). It printed a stack trace (SandboxConfigError, a fault variable's Error,
 * Node's ERR_SOCKET_BAD_PORT for SANDBOX_PORT=70000, EADDRINUSE), and read `1e3` or `0x10` as numbers.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SandboxConfigError, sandboxOptionsFromEnv } from '../../src/sandbox/env-config.js';

const REPO = resolve(import.meta.dirname, '../..');

/** `npm run sandbox` with these variables; a sandbox that starts anyway is killed (and fails the test). */
function runSandbox(vars: Record<string, string>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/sandbox/main.ts')], {
    cwd: REPO,
    env: { ...process.env, SANDBOX_PORT: '0', ...vars },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const limit = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  return new Promise<{ code: number | null; stderr: string }>((done) =>
    proc.on('close', (code) => {
      clearTimeout(limit);
      done({ code, stderr });
    }),
  );
}

describe('npm run sandbox with a value it cannot use', () => {
  it.each([
    [
      { SANDBOX_PORT: 'abc' },
      'environment variable SANDBOX_PORT must be a whole number from 0 to 65535, got "abc"',
    ],
    [
      { SANDBOX_PORT: '70000' },
      'environment variable SANDBOX_PORT must be a whole number from 0 to 65535, got "70000"',
    ],
    [{ SANDBOX_ERROR_RATE: '2' }, 'SANDBOX_ERROR_RATE must be a number between 0 and 1, got "2"'],
  ])(
    '%j stops with one line naming it, exit 1',
    async (vars, why) => {
      const { code, stderr } = await runSandbox(vars);
      expect(stderr).toBe(`npm run sandbox failed: ${why}\n`);
      expect(code).toBe(1);
    },
    40_000,
  );

  it('a taken port stops with one line saying so, exit 1', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const port = (holder.address() as { port: number }).port;
    try {
      const { code, stderr } = await runSandbox({ SANDBOX_PORT: String(port) });
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`npm run sandbox failed: listen EADDRINUSE`);
      expect(stderr).toContain('set SANDBOX_PORT=<free port>');
      expect(code).toBe(1);
    } finally {
      await new Promise((done) => holder.close(done));
    }
  }, 40_000);

  it.each(['1e3', '0x10', '1.0', '-1'])('SANDBOX_EVENT_COUNT=%s is not a number', (value) => {
    expect(() => sandboxOptionsFromEnv({ SANDBOX_EVENT_COUNT: value })).toThrow(SandboxConfigError);
  });

  it('reads decimal digits as before', () => {
    const options = sandboxOptionsFromEnv({ SANDBOX_PORT: '4011', SANDBOX_EVENT_COUNT: ' 300 ' });
    expect(options.port).toBe(4011);
    expect(options.eventCount).toBe(300);
  });
});
