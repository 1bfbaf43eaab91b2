/**
 * `autopilot policy test` could not tell a dry run from a real change. The shipped policy keeps
 * the stale sweep's archives dry runs (`sweeper.staleConfigs.dryRun`); a change that turns that
 * off makes the deployed worker really archive configs, yet a case expecting "approve" still
 * passed, and the table showed "approve" for both. `policy replay` tells them apart
 * ("approve (dry run) → approve"); a case can now say `expect.dryRun`, and the table shows
 * "approve (dry run)".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'review-policy-dry-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shipped = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
const real = structuredClone(shipped);
real.sweeper.staleConfigs.dryRun = false;

const sweepCase = {
  name: 'the stale sweep only rehearses its archives',
  at: '2026-11-30T03:00',
  request: { action: 'archive_config', target: 'old_banner', requester: 'schedule:stale-config-sweep' },
  expect: { outcome: 'approve', dryRun: true },
};

async function run(policy: unknown, cases: unknown, ...flags: string[]) {
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy));
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  const { io, out, err } = captureIo({ cwd: dir });
  const code = await runCli(['policy', 'test', 'policy.json', 'cases.json', ...flags], io);
  return { code, out: out(), err: err() };
}

describe('policy test: a dry run is not a real change', () => {
  it('passes a case expecting a dry run under the shipped policy, and shows it as one', async () => {
    const result = await run(shipped, { cases: [sweepCase] });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('approve (dry run)');
  });

  it('fails that case (exit 1) when the policy turns the dry run off: the worker would really archive', async () => {
    const result = await run(real, { cases: [sweepCase] });
    expect(result.code, result.err).toBe(1);
    expect(result.out).toMatch(/FAIL the stale sweep only rehearses its archives: .*dry run/);
  });

  it('says in --json whether the decision was a dry run', async () => {
    const { out } = await run(real, { cases: [{ ...sweepCase, expect: { outcome: 'approve' } }] }, '--json');
    expect(JSON.parse(out).results[0]).toMatchObject({ got: 'approve', dryRun: false, pass: true });
  });
});
