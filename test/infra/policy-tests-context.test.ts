/**
 * `policyTests` is the context key that makes a deploy run the policy's test cases first
 * (README "Policy as code": `npx cdk deploy -c policyTests=policy.cases.json`; "The values can
 * also live in the `context` block of `cdk.json`"). README "Deploy the stack" promises that a bad
 * context value "stops the synth with one line naming the key". An operator who writes
 * `"policyTests": true` (or a list of files) in cdk.json got a deploy that ran no case at all,
 * without a word; a cases file that does not exist was named without the key that named it.
 * Runs infra/app.ts as `cdk synth` does (the context in CDK_CONTEXT_JSON), without bundling.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');

function synth(context: Record<string, unknown>) {
  const outdir = mkdtempSync(join(tmpdir(), 'autopilot-journey-synth-'));
  try {
    return spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'infra/app.ts')], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 90_000,
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

describe('context value "policyTests"', () => {
  it.each([[true], [['policy.cases.json']], [19]])(
    'given as %j in cdk.json, stops the synth naming the key instead of deploying untested',
    (value) => {
      const run = synth({ policyTests: value });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(
        /^console-autopilot: context value "policyTests" must be the path of a cases file/,
      );
    },
  );

  it('naming a file that does not exist, stops the synth naming the key', () => {
    const run = synth({ policyTests: 'policy.case.json' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('policy.case.json');
    expect(run.stderr).toContain('context value "policyTests"');
  });
});
