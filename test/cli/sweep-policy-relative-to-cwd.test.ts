/**
 * `sweep --dry-run --policy <file>` read a relative file from the process's working directory,
 * not the command's (`io.cwd`), unlike `cancel --policy` and the `policy` commands: run
 * in-process with another working directory (as the tests run it), it did not
 * find the file it was given, or planned with another one of the same name.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;
beforeAll(async () => {
  t = await bootTestStack('sweep-policy-cwd');
  // Beside the stack's policy (which has a stale-config sweep), one without it.
  const policy = JSON.parse(readFileSync(t.stack.policyPath, 'utf8'));
  delete policy.sweeper.staleConfigs;
  writeFileSync(join(t.dir, 'no-stale-sweep.json'), JSON.stringify(policy));
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

it('reads --policy relative to the command’s working directory', async () => {
  const run = captureIo({
    env: { ...t.cliEnv, LOG_LEVEL: 'error' },
    cwd: t.dir,
    now: () => new Date('2031-03-30T09:00:00Z'),
  });
  const code = await runCli(
    ['sweep', '--dry-run', '--local', '--json', '--policy', 'no-stale-sweep.json'],
    run.io,
  );
  expect(code, run.err()).toBe(0);
  const plan = JSON.parse(run.out()) as { summary: { stale: { judged: boolean; notJudged?: string } } };
  expect(plan.summary.stale.judged).toBe(false);
  // No staleConfigs in the policy named: nothing to judge, and no other reason given.
  expect(plan.summary.stale.notJudged).toBeUndefined();
});
