/**
 * `npm start` itself, as a user runs it: one spawn (tsx startup is slow), from banner to Ctrl-C,
 * through the first sweep: its dozens of JSON lines go to `.local/logs/`, not over the banner.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'autopilot-start-'));
let child: ChildProcess | undefined;

/** The shipped policy without its year-end freeze: what the sweep's approvals meet does not depend on the date. */
function policyWithoutFreeze(): string {
  const policy = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
  policy.approvals.freezes = [];
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints the banner, writes the endpoints file, answers, keeps the first sweep’s JSON lines off the terminal, and stops cleanly on SIGINT', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/local/start.ts')], {
      cwd: REPO,
      env: {
        ...process.env,
        PORT: '0',
        // The first sweep runs a few seconds after start, as a user's does; no second one.
        SWEEP_INTERVAL_SECONDS: '3600',
        AUTOPILOT_STATE_DIR: dir,
        LOG_LEVEL: 'info',
        AUTOPILOT_LOCAL_LOGS: '',
        AUTOPILOT_POLICY: policyWithoutFreeze(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    proc.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const endpointsFile = join(dir, 'endpoints.json');
    for (let i = 0; i < 200 && !stdout.includes('Ctrl-C stops'); i++) {
      if (proc.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(stdout, stderr).toContain('console-autopilot — local stack');
    expect(stdout).toContain('x-slack-signature: v0=');
    const endpoints = JSON.parse(readFileSync(endpointsFile, 'utf8'));
    const health = await fetch(`${endpoints.webhookUrl}/health`);
    expect(health.status).toBe(200);
    expect(stdout).toContain(`logs            ${join(dir, 'logs')}/<function>.jsonl`);
    expect(stdout).toContain('AUTOPILOT_LOCAL_LOGS=all prints all');

    const stackLog = join(dir, 'logs', 'local-stack.jsonl');
    const swept = () => existsSync(stackLog) && readFileSync(stackLog, 'utf8').includes('"sweep finished"');
    for (let i = 0; i < 200 && !swept(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(swept(), stderr).toBe(true);
    // The sweep's log and metric lines are in its file, in full; none reached the terminal.
    const sweeper = readFileSync(join(dir, 'logs', 'sweeper.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(sweeper.some((l) => JSON.parse(l).level === 'info')).toBe(true);
    expect(sweeper.some((l) => 'EventsRead' in JSON.parse(l))).toBe(true);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toContain('"EventsRead"');
    expect(stdout.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
    // It boots and sweeps with no warn or error line.
    expect(stdout).not.toMatch(/^\d\d:\d\d:\d\dZ \S+ +(WARN|ERROR) /m);

    // 'close', not 'exit': the child's stdio may still hold its last lines at 'exit' ("stopped.").
    const exited = new Promise<number | null>((done) => proc.on('close', (code) => done(code)));
    proc.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('stopped.');
    expect(existsSync(endpointsFile)).toBe(false);
  });

  // Checked before anything starts: no port is taken, no timer set, the variable is named.
  it.each([
    ['SWEEP_INTERVAL_SECONDS', '3000000', 'must be a whole number from 0 to 2147483'],
    ['LOG_LEVEL', 'verbose', 'must be one of debug, info, warn, error'],
    ['CONSOLE_RESPECT_REVIEW_SETTINGS', 'yes', 'must be true or false'],
    ['AUTOPILOT_LOCAL_LOGS', 'loud', 'must be one of warn, all'],
  ])('refuses %s=%s at start, naming the variable', async (name, value, why) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/local/start.ts')], {
      cwd: REPO,
      env: { ...process.env, PORT: '0', AUTOPILOT_STATE_DIR: join(dir, 'refused'), [name]: value },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    // A stack that starts after all is stopped, so the test fails rather than leaves it running.
    const started = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    // 'close', not 'exit': stderr (read below) may still be open at 'exit'.
    const code = await new Promise<number | null>((done) => proc.on('close', (exit) => done(exit)));
    clearTimeout(started);
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`npm start failed: environment variable ${name} ${why}, got "${value}"`);
    expect(existsSync(join(dir, 'refused'))).toBe(false);
  });
});
