/**
 * `npm run demo` against a running stack (README, "Demo"): when what it demonstrates does not
 * happen (the webhook refuses its signature, the worker never answers) it printed a note in
 * parentheses, went on and exited 0, so a broken stack passed for a working one. It must stop
 * with a one-line reason and exit 1. Like the CLI's `--local`, it reads AUTOPILOT_ENDPOINTS_FILE
 * (so this test never touches a developer's `.local/`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootLocalStack, type LocalStack, type LocalStackOptions } from '../../src/local/stack.js';

const REPO = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const stacks: LocalStack[] = [];

afterEach(async () => {
  for (const stack of stacks.splice(0)) await stack.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function boot(options: LocalStackOptions): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-demo-'));
  dirs.push(dir);
  const stack = await bootLocalStack({
    port: 0,
    stateDir: dir,
    writeEndpointsFile: true,
    sweepIntervalSeconds: false,
    release: { intervalSeconds: false },
    env: { LOG_LEVEL: 'error' },
    receiver: { print: false },
    ...options,
  });
  stacks.push(stack);
  return join(dir, 'endpoints.json');
}

/** Runs the demo as `npm run demo` does; killed after `limitMs` so a demo that keeps going fails the test. */
function demo(endpointsFile: string, limitMs: number) {
  const env: NodeJS.ProcessEnv = { ...process.env, AUTOPILOT_ENDPOINTS_FILE: endpointsFile };
  delete env.SLACK_SIGNING_SECRET;
  const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/local/demo.ts')], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const limit = setTimeout(() => proc.kill('SIGKILL'), limitMs);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    proc.on('close', (code) => {
      clearTimeout(limit);
      done({ code, stdout, stderr });
    }),
  );
}

describe('npm run demo, when what it shows does not happen', () => {
  it('stops at a refused signature with exit 1 and says why', async () => {
    const file = await boot({ signingSecret: 'not-the-demo-default', worker: { autoStart: false } });
    const { code, stdout, stderr } = await demo(file, 60_000);
    expect(stdout).toContain('$ /autopilot status');
    expect(stderr.trim()).toBe(
      "demo: the webhook answered /autopilot status with 401 (sign with the stack's SLACK_SIGNING_SECRET)",
    );
    expect(code).toBe(1);
    // It stopped there: nothing was queued for a stack it cannot talk to.
    expect(stdout).not.toContain('2. A person approves a phase');
  }, 90_000);

  it('exits 1 when the worker never answers the approval', async () => {
    const file = await boot({ worker: { autoStart: false } });
    const { code, stdout, stderr } = await demo(file, 75_000);
    expect(stdout).toContain('*Queued:* approve phase `ph_2` of trigger `trg_6`');
    expect(stderr.trim()).toBe(
      "demo: no reply to the approval within 20 s: is the worker running? see the stack's banner",
    );
    expect(code).toBe(1);
  }, 100_000);
});
