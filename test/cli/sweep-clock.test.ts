/** `sweep --dry-run` must plan at the CLI's clock (io.now), not the machine's. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;
beforeAll(async () => {
  t = await bootTestStack('review-sweep-clock');
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

describe('sweep --dry-run and the injected clock', () => {
  it('runs at io.now', async () => {
    const pinned = new Date('2031-03-30T01:30:00Z');
    const io = captureIo({
      env: { ...t.cliEnv, AUTOPILOT_POLICY: t.stack.policyPath },
      cwd: t.dir,
      now: () => pinned,
    });
    const code = await runCli(['sweep', '--dry-run', '--local', '--json'], io.io);
    expect(code, io.err()).toBe(0);
    const plan = JSON.parse(io.out()) as { summary: { runAt: string } };
    expect(plan.summary.runAt).toBe(pinned.toISOString());
  });
});
