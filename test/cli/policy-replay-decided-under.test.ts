/**
 * `autopilot policy replay` says how many of the recorded decisions the replayed policy itself
 * made, how many another policy made (say, the one deployed before a redeploy), and how many are
 * unknown: records written before the deciding policy was kept have no `policyDigest`, and are
 * counted so, never an error. The records are the real worker's, under two policies in turn.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { policyReplayCommand } from '../../src/cli/policy-replay.js';
import { policyDigest } from '../../src/policy/digest.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { replayDecisions } from '../../src/policy/replay.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit, writeAudit } from '../../src/state/audit.js';
import { scanAuditSince } from '../../src/state/audit-scan.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';

const bench = benchForFile();
let deployed: PolicyInput;
let before: PolicyInput;

async function decide(requestId: string, triggerId: string, at: string, policy: PolicyInput) {
  bench.clock.now = new Date(at);
  await bench.send({ triggerId, phaseId: 'ph_1', requestId, requestedAt: at });
  await bench.run(bench.worker({ policy }), await bench.receive());
}

beforeAll(async () => {
  deployed = basePolicy(bench.slack.origin);
  // The policy deployed before: the same rules, with a week's longer wait allowed.
  before = { ...structuredClone(deployed), approvals: { ...deployed.approvals, maxDeferHours: 168 } };
  await decide('under-before', 'trg_1', '2026-11-23T10:00:00Z', before);
  await decide('under-deployed-1', 'trg_2', '2026-11-23T11:00:00Z', deployed);
  await decide('under-deployed-2', 'trg_3', '2026-11-23T12:00:00Z', deployed);
  // Written before records named their policy.
  await writeAudit(bench.table, {
    requestId: 'under-unknown',
    at: new Date('2026-11-23T13:00:00Z'),
    action: 'approve_phase',
    target: 'trigger trg_9 phase ph_1',
    effectKey: 'approve_phase#trg_9#ph_1',
    requester: 'ci:deploy.yml',
    rule: 'CI in office hours',
    reason: 'in office hours',
    result: 'approved',
    dryRun: false,
  });
}, 60_000);

async function replay(policy: PolicyInput, ...args: string[]) {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: () => {},
    env: {},
    cwd: '/',
    now: () => new Date('2026-11-30T00:00:00Z'),
  };
  const code = await policyReplayCommand(
    ['--policy', 'new.json', '--since', '2026-11-01T00:00:00Z', ...args],
    io,
    {
      read: () => JSON.stringify(policy),
      table: bench.table,
    },
  );
  return { code, out: out.join('\n') };
}

describe('autopilot policy replay: the policy each record was decided under', () => {
  it('recorded the deciding policy on each decision', async () => {
    expect((await readAudit(bench.table, 'under-before'))[0]?.policyDigest).toBe(
      policyDigest(parsePolicy(before)),
    );
    expect((await readAudit(bench.table, 'under-deployed-1'))[0]?.policyDigest).toBe(
      policyDigest(parsePolicy(deployed)),
    );
  });

  it('counts records under the replayed policy, under another, and unknown ones', async () => {
    const { code, out } = await replay(deployed, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.policyDigest).toBe(policyDigest(parsePolicy(deployed)));
    expect(report.decidedUnder).toEqual({ thisPolicy: 2, otherPolicy: 1, unknown: 1 });
    // Replaying the older policy turns the counts round; the unknown one stays unknown.
    const older = JSON.parse((await replay(before, '--json')).out);
    expect(older.decidedUnder).toEqual({ thisPolicy: 1, otherPolicy: 2, unknown: 1 });
  });

  it('says so in its summary for people', async () => {
    const { out } = await replay(deployed);
    const digest = policyDigest(parsePolicy(deployed));
    expect(out).toContain(
      `Recorded decisions by the policy that made them: 2 under this one (${digest}), 1 under another, 1 unknown (recorded before the policy was kept).`,
    );
  });

  it('counts every record as unknown when the replay is given no digest to compare with', async () => {
    const records = await scanAuditSince(bench.table, new Date('2026-11-01T00:00:00Z'));
    const report = replayDecisions(parsePolicy(deployed), records);
    expect(report.decidedUnder).toEqual({ thisPolicy: 0, otherPolicy: 0, unknown: 4 });
  });
});
