/**
 * `cdk synth -c policyTests=<cases.json>`: the policy's test cases run before anything is
 * synthesized, so `cdk deploy` refuses a policy that breaks what its owners expect of it. The
 * policy and cases files are resolved from the repository root, as the bundle resolves the policy
 * it ships (infra/bundling.ts): wherever `cdk synth` is started, the file tested is the one deployed.
 */
import { policyTestResults } from '../src/cli/policy-test.js';
import { REPO_ROOT } from './bundling.js';

/** Throws one line naming every failed case; returns how many passed. */
export function assertPolicyTestsPass(policyFile: string, casesFile: string, root = REPO_ROOT): number {
  // Read as if run at the root: both files are named relative to it.
  const io = { stdout: () => {}, stderr: () => {}, env: {}, cwd: root, now: () => new Date(0) };
  const results = policyTestResults(io, policyFile, casesFile);
  const failed = results.filter((r) => !r.pass);
  if (failed.length > 0) {
    const named = failed.map((r) => `"${r.name}" (expected ${r.expected}; ${r.problem ?? `got ${r.got}`})`);
    throw new Error(
      `policy tests failed (${failed.length} of ${results.length}) in ${casesFile}: ${named.join(', ')}`,
    );
  }
  return results.length;
}
