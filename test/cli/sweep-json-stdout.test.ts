/**
 * `autopilot sweep --dry-run --json`, the real binary: stdout holds the plan alone, one JSON
 * document (a script reads it). The sweeper's metric lines (EMF, Lambda's convention of writing
 * to stdout) are not written by a dry run, and its log lines go to stderr.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootTestStack, type TestStack } from '../helpers/local-stack.js';

const REPO = resolve(import.meta.dirname, '../..');
let t: TestStack;
beforeAll(async () => {
  t = await bootTestStack('review-sweep-json');
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

describe('sweep --dry-run --json (the binary)', () => {
  it('prints one JSON document on stdout, and no metric lines', async () => {
    const child = spawn(
      process.execPath,
      [resolve(REPO, 'bin/autopilot.js'), 'sweep', '--dry-run', '--local', '--json'],
      {
        cwd: t.dir,
        env: { ...process.env, ...t.cliEnv, AUTOPILOT_POLICY: t.stack.policyPath, LOG_LEVEL: 'error' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const status = await new Promise<number | null>((done) => child.on('close', done));
    expect(status, stderr).toBe(0);
    expect(stdout).not.toContain('"_aws"');
    expect(() => JSON.parse(stdout)).not.toThrow();
  }, 90_000);
});
