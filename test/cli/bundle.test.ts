/**
 * Issue 13 item 7: the CLI ships as one file that runs with Node alone: built by
 * `npm run build:cli`, copied into an empty directory (no node_modules anywhere above it, no
 * tsx, no repository), it answers --help, checks a policy and builds a request.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliBundle } from '../../infra/cli-bundle.js';

const work = mkdtempSync(join(tmpdir(), 'autopilot-cli-bundle-'));
const alone = mkdtempSync(join(tmpdir(), 'autopilot-cli-alone-'));
let file: string;

beforeAll(async () => {
  const built = await buildCliBundle(join(work, 'autopilot.mjs'));
  file = join(alone, 'autopilot.mjs');
  copyFileSync(built, file);
  writeFileSync(join(alone, 'policy.json'), readFileSync(resolve(import.meta.dirname, '../../policy.json')));
}, 60_000);
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(alone, { recursive: true, force: true });
});

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [file, ...args], {
    cwd: alone,
    encoding: 'utf8',
    // Node alone: no loader, no NODE_PATH, no repository on the module path.
    env: { PATH: process.env.PATH, HOME: alone },
    timeout: 30_000,
  });

describe('the bundled CLI', () => {
  it('is one file of reasonable size, with no node_modules beside or above it', () => {
    expect(statSync(file).size).toBeLessThan(3_000_000);
    expect(() => statSync(join(alone, 'node_modules'))).toThrow();
  });

  it('runs with Node alone: help, a policy check, a request', () => {
    const help = cli('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('enqueue approve');
    const check = cli('policy', 'check', 'policy.json', '--strict');
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain('is a valid policy');
    const print = cli('enqueue', 'approve', 'trg_1', 'ph_2', '--print', '--requested-by', 'ci:deploy');
    expect(print.status, print.stderr).toBe(0);
    expect(JSON.parse(print.stdout)).toMatchObject({
      action: 'approve_phase',
      triggerId: 'trg_1',
      phaseId: 'ph_2',
    });
  });

  it('fails a bad call with exit 2 and a message', () => {
    const bad = cli('enqueue', 'approve', 'trg_1', 'ph_2', '--wait', '--timeout', 'soon');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--timeout must be like 90s, 15m, 2h or 1d');
  });
});
