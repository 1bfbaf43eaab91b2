/**
 * `autopilot cancel` reads the policy other CLI commands read (`AUTOPILOT_POLICY`, else
 * ./policy.json), and checks `SLACK_WEBHOOK_URL` before it cancels anything: a malformed value
 * (pasted without its scheme) is refused naming the variable, never printed, and the request
 * stays held, rather than a done cancel reported as a failed command.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readFinal } from '../../src/state/audit.js';
import { captureIo } from '../helpers/cli-io.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';

const bench = benchForFile();
let policyDir = '';
let emptyCwd = '';
const MONDAY_EVENING = new Date('2026-11-23T20:00:00Z');

beforeAll(async () => {
  policyDir = mkdtempSync(join(tmpdir(), 'autopilot-review-cancel-policy-'));
  emptyCwd = mkdtempSync(join(tmpdir(), 'autopilot-review-cancel-cwd-'));
  writeFileSync(join(policyDir, 'policy.json'), JSON.stringify(basePolicy(bench.slack.origin)));
  const worker = bench.worker();
  bench.clock.now = MONDAY_EVENING;
  // CI requests outside office hours: held until Tuesday 09:00 UTC.
  for (const n of [1, 2])
    await bench.send({ triggerId: `trg_${n}`, phaseId: 'ph_1', requestId: `review-night-${n}` });
  await bench.run(worker, await bench.receive());
});

function io(env: Record<string, string>, cwd: string) {
  return captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
      USER: 'alice',
      ...env,
    },
    cwd,
    now: () => new Date('2026-11-23T20:30:00Z'),
  });
}

describe('autopilot cancel: policy file and channel URL', () => {
  it('reads the policy named by AUTOPILOT_POLICY, as the other policy-reading commands do', async () => {
    const run = io({ AUTOPILOT_POLICY: join(policyDir, 'policy.json') }, emptyCwd);
    const code = await runCli(['cancel', 'review-night-1', '--reason', 'superseded'], run.io);
    expect(run.err()).not.toContain('cannot read policy policy.json');
    expect(code, run.err()).toBe(0);
  });

  it('refuses a malformed SLACK_WEBHOOK_URL before cancelling, naming the variable, never the URL', async () => {
    const run = io({ SLACK_WEBHOOK_URL: 'hooks.slack.com/services/T0/B0/not-a-url' }, policyDir);
    const code = await runCli(['cancel', 'review-night-2', '--reason', 'superseded'], run.io);
    expect(code).toBe(1);
    expect(run.err()).toContain('SLACK_WEBHOOK_URL is not an http(s) URL; nothing was cancelled');
    expect(run.err() + run.out()).not.toContain('not-a-url');
    expect(await readFinal(bench.table, 'review-night-2')).toBeUndefined();
    // Fixed, the same command cancels it.
    const again = io({ SLACK_WEBHOOK_URL: `${bench.slack.origin}/channel` }, policyDir);
    expect(await runCli(['cancel', 'review-night-2', '--reason', 'superseded'], again.io), again.err()).toBe(
      0,
    );
    expect(await readFinal(bench.table, 'review-night-2')).toMatchObject({ result: 'cancelled' });
  });
});
