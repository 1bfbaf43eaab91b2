/**
 * `sweep --dry-run` writes its log lines (stderr) at the CLI's clock (io.now), as the plan runs
 * at it: the sweeper's logger was built without the clock, so a dry run planned for a pinned
 * instant logged at the machine's time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;
beforeAll(async () => {
  // Exposures whose config id sits where none of the sandbox's events have one: the sweeper warns.
  t = await bootTestStack('sweep-log-clock', (policy) => {
    policy.sweeper.staleConfigs.exposureEvents = [
      { name: 'config_exposure', configIdFrom: 'metadata.nowhere' },
    ];
  });
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

describe('sweep --dry-run log lines', () => {
  it('carry the time of the clock the plan runs at', async () => {
    const pinned = new Date('2031-03-30T01:30:00Z');
    const io = captureIo({
      env: { ...t.cliEnv, AUTOPILOT_POLICY: t.stack.policyPath },
      cwd: t.dir,
      now: () => pinned,
    });
    expect(await runCli(['sweep', '--dry-run', '--local', '--json'], io.io), io.err()).toBe(0);
    const lines = io
      .err()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { time: string; message: string });
    expect(lines.map((l) => l.message)).toContain('exposure events without a config id: not recorded');
    expect(new Set(lines.map((l) => l.time))).toEqual(new Set([pinned.toISOString()]));
  });
});
