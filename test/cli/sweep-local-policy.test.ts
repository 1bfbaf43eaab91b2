/**
 * `autopilot sweep --dry-run --local` plans "against the running local stack", but read the
 * policy from the CLI's own AUTOPILOT_POLICY or ./policy.json, not the one the stack runs: after
 * `AUTOPILOT_POLICY=other.json npm start`, the plan in another terminal (no variable there) was
 * the shipped policy's, with event rules and stale-config judgements the running sweeper does
 * not have. The stack now names its policy file in its endpoints file, and --local uses it
 * unless --policy names another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { REPO_ROOT } from '../../src/local/endpoints.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;

beforeAll(async () => {
  // The running stack's policy has no stale-config sweep; the shipped policy.json has one.
  t = await bootTestStack('review-cli-sweep-policy', (policy) => {
    delete policy.sweeper.staleConfigs;
  });
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

const pinned = () => new Date('2031-03-30T09:00:00Z');

async function plan(extra: string[] = []) {
  // Run from the repository's root, where the shipped policy.json is, with no AUTOPILOT_POLICY.
  const run = captureIo({ env: { ...t.cliEnv, LOG_LEVEL: 'error' }, cwd: REPO_ROOT, now: pinned });
  const code = await runCli(['sweep', '--dry-run', '--local', '--json', ...extra], run.io);
  expect(code, run.err()).toBe(0);
  return JSON.parse(run.out()) as { summary: { stale: { judged: boolean; notJudged?: string } } };
}

describe('sweep --dry-run --local', () => {
  it("plans with the running stack's policy", async () => {
    const { summary } = await plan();
    expect(summary.stale.judged).toBe(false);
  });

  it('plans with the policy --policy names, when one is named', async () => {
    const { summary } = await plan(['--policy', 'policy.json']);
    expect(summary.stale.notJudged ?? '').not.toMatch(/no staleConfigs/);
  });
});

describe('sweep --dry-run --local with a real Console API key still exported in the shell', () => {
  it("reads the embedded sandbox with the sandbox's own key: the shell's keys never go to it", async () => {
    const run = captureIo({
      env: {
        ...t.cliEnv,
        LOG_LEVEL: 'error',
        CONSOLE_API_KEY: 'a-real-platform-key-exported-earlier',
        CONSOLE_READ_ONLY_API_KEY: 'a-real-read-only-key-exported-earlier',
      },
      cwd: REPO_ROOT,
      now: pinned,
    });
    const code = await runCli(['sweep', '--dry-run', '--local', '--json'], run.io);
    expect(code, run.err()).toBe(0);
    const { summary } = JSON.parse(run.out()) as {
      summary: { stop: string; events: { eventsRead: number } };
    };
    expect(summary.stop).not.toBe('error');
    expect(summary.events.eventsRead).toBeGreaterThan(0);
  });
});
