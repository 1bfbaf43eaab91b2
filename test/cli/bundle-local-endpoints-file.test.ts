/**
 * `--local` reads the running stack's `.local/endpoints.json`. Its default path came from
 * `import.meta.url` (REPO_ROOT: two directories above src/local/endpoints.ts): in the bundled CLI
 * (`npm run build:cli`, dist/autopilot.mjs) that is the directory above the checkout, so the
 * bundled CLI run in the repository looked for `<parent>/.local/endpoints.json` and said the stack
 * was not running. The default is now the checkout's (the nearest console-autopilot package at or
 * above the working directory), the same rule for the bundled and the tsx CLI.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliBundle } from '../../infra/cli-bundle.js';

const root = mkdtempSync(join(tmpdir(), 'autopilot-review-bundle-local-'));
const checkout = join(root, 'checkout');
const elsewhere = join(root, 'elsewhere');
let file: string;

beforeAll(async () => {
  mkdirSync(join(checkout, '.local'), { recursive: true });
  mkdirSync(join(checkout, 'src', 'cli'), { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: 'console-autopilot' }));
  const metrics = join(checkout, '.local', 'metrics.jsonl');
  writeFileSync(metrics, '');
  writeFileSync(
    join(checkout, '.local', 'endpoints.json'),
    JSON.stringify({ webhookUrl: 'http://127.0.0.1:9', metricsFile: metrics }),
  );
  // Where `npm run build:cli` writes it: dist/ of the checkout.
  file = await buildCliBundle(join(checkout, 'dist', 'autopilot.mjs'));
}, 60_000);
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [file, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: root },
    timeout: 30_000,
  });

describe('the bundled CLI with --local', () => {
  it('reads the endpoints file of the checkout it runs in (its root or below)', () => {
    for (const cwd of [checkout, join(checkout, 'src', 'cli')]) {
      const stats = cli(cwd, 'stats', '--local');
      expect(stats.stderr).toBe('');
      expect(stats.status).toBe(0);
      expect(stats.stdout).toContain('No metrics yet');
    }
  });

  it('outside any checkout, says where it looked and how to name the file', () => {
    const stats = cli(elsewhere, 'stats', '--local');
    expect(stats.status).toBe(1);
    expect(stats.stderr).toContain('AUTOPILOT_ENDPOINTS_FILE');
    expect(stats.stderr).not.toContain(join(root, '.local'));
  });
});
