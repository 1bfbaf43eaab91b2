/**
 * `cdk synth -c policyTests=<cases.json>` gates a deploy on the policy's test cases. The bundle
 * ships the policy file resolved from the repository root (infra/bundling.ts), so the cases must
 * run against that same file wherever `cdk synth` is started: run from another directory holding a
 * policy.json of its own, the gate tested that one and deployed the repository's untested.
 * Runs infra/app.ts as `cdk synth` does (the context in CDK_CONTEXT_JSON), without bundling.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
// tsx's loader by its full address: `--import tsx` resolves from the working directory.
const TSX = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
const elsewhere = mkdtempSync(join(tmpdir(), 'autopilot-synth-elsewhere-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

// Another directory's policy.json: denies everything (no rules), unlike the repository's.
writeFileSync(join(elsewhere, 'policy.json'), JSON.stringify({ version: 1 }));

/** A cases file in `elsewhere` holding one case: CI in office hours gets `expect`. */
function casesExpecting(name: string, expect: Record<string, string>): string {
  const file = join(elsewhere, `${name}.json`);
  const request = { action: 'approve_phase', target: 'trg_1/ph_2', requester: 'ci:deploy.yml' };
  writeFileSync(file, JSON.stringify({ cases: [{ name, at: '2026-11-30T10:00', request, expect }] }));
  return file;
}

function synthFrom(cwd: string, context: Record<string, unknown>) {
  const outdir = mkdtempSync(join(tmpdir(), 'autopilot-synth-out-'));
  try {
    return spawnSync(process.execPath, ['--import', TSX, join(REPO, 'infra/app.ts')], {
      cwd,
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        CDK_CONTEXT_JSON: JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] }),
      },
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

// Each case runs infra/app.ts in a fresh process (a full synth without bundling: 20-30 s alone,
// longer on a loaded machine): a timeout of its own, as long as the process's.
describe('policyTests run from another directory', { timeout: 150_000 }, () => {
  it('test the policy the bundle ships: a case the repository policy fails stops the synth', () => {
    // True of the other directory's policy.json only.
    const cases = casesExpecting('denied-by-default', { outcome: 'deny', rule: 'otherwise' });
    const run = synthFrom(elsewhere, { policyTests: cases });
    expect(run.stderr).toContain('policy tests failed (1 of 1)');
    expect(run.stderr).toContain('"denied-by-default"');
    expect(run.status).toBe(1);
  });

  it('test the policy the bundle ships: a case the repository policy passes lets the synth go on', () => {
    // True of the repository's policy.json, which is what ships.
    const cases = casesExpecting('ci-in-office-hours', {
      outcome: 'approve',
      rule: 'CI promotes any phase in office hours',
    });
    const run = synthFrom(elsewhere, { policyTests: cases });
    expect(run.stderr).not.toContain('policy tests failed');
    expect(run.status).toBe(0);
  });
});
